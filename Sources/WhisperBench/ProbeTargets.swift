import WhisperAdmin

/// The processes whose cost the relay scenario measures: `--server-pid`, `--redis-pid`,
/// `--admin-url`. All optional; without them the ratio R is skipped.
public struct ProbeTargets: Sendable, Equatable {
    public var serverPid: Int32?
    /// One redis-server, or each primary of a Redis Cluster (their CPU is summed, and its spread
    /// across them reported).
    public var redisPids: [Int32]
    public var admin: AdminEndpoint?

    public init(serverPid: Int32? = nil, redisPids: [Int32] = [], admin: AdminEndpoint? = nil) {
        self.serverPid = serverPid
        self.redisPids = redisPids
        self.admin = admin
    }
}
