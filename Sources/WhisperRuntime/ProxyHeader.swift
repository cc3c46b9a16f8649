/// A decoded PROXY protocol v2 header (haproxy doc/proxy-protocol.txt §2.2).
public struct ProxyHeader: Sendable {
    public enum Command: Sendable, Equatable {
        /// The balancer speaks for itself (health checks): the socket's own peer stays the client.
        case local
        /// The connection is relayed on behalf of `source`.
        case proxy
    }

    public let command: Command
    /// The original client for a PROXY command over TCP/IPv4 or TCP/IPv6; nil for LOCAL and for
    /// PROXY with the UNSPEC family, where the spec says to keep the real connection endpoints.
    public let source: SocketAddress?
}
