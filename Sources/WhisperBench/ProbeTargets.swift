import WhisperAdmin

/// The processes whose cost the relay scenario measures: `--server-pid`, `--redis-pid`,
/// `--admin-url`. All optional; without them the ratio R is skipped.
public struct ProbeTargets: Sendable, Equatable {
    public var serverPid: Int32?
    public var redisPid: Int32?
    public var admin: AdminEndpoint?

    public init(serverPid: Int32? = nil, redisPid: Int32? = nil, admin: AdminEndpoint? = nil) {
        self.serverPid = serverPid
        self.redisPid = redisPid
        self.admin = admin
    }
}
