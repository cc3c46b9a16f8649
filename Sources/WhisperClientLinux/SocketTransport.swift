import WhisperClient

/// The Linux `ClientTransport`: blocking sockets (optionally TLS through OpenSSL) carrying the
/// project's own WebSocket codec. Meant for one client thread; `connect()` opens a new socket
/// each time. A TLS write to a reset peer raises SIGPIPE (OpenSSL cannot pass MSG_NOSIGNAL):
/// the process should ignore SIGPIPE, as the `whisper` CLI does.
public struct SocketTransport: ClientTransport {
    public let server: ServerURL
    /// A PEM bundle to trust instead of the system store (a self-signed test server).
    public let caFile: String?
    public let timeoutSeconds: Int

    public init(server: ServerURL, caFile: String? = nil, timeoutSeconds: Int = 10) {
        (self.server, self.caFile, self.timeoutSeconds) = (server, caFile, timeoutSeconds)
    }

    public var httpBase: String { server.httpBase }

    public func connect() throws(TransportError) -> any ClientConnection {
        try SocketWebSocket(url: server, path: "/ws", caFile: caFile, timeoutSeconds: timeoutSeconds)
    }

    public func http(_ request: HTTPRequest) throws(TransportError) -> HTTPResponse {
        try SocketHTTP.send(request, caFile: caFile, timeoutSeconds: timeoutSeconds)
    }
}
