/// Which socket asked, so a revocation can spare the socket that caused it.
public struct ConnectionRef: Sendable, Equatable {
    /// Random per server process (`ServerShared.nodeId`).
    public let node: String
    public let connection: UInt64

    public init(node: String, connection: UInt64) {
        self.node = node
        self.connection = connection
    }
}

/// The caller of a use case: its IP (rate limits) and its socket.
public struct ClientRef: Sendable, Equatable {
    public let ip: String
    public let connection: ConnectionRef

    public init(ip: String, connection: ConnectionRef) {
        self.ip = ip
        self.connection = connection
    }
}
