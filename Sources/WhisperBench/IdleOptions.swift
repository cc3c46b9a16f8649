/// `whisper-bench idle`: many logged-in phones that then say nothing.
public struct IdleOptions: Sendable {
    public var connections = 1_000
    /// How long to hold them after the last login. The server pings a socket quiet for
    /// `WHISPER_WS_PING_INTERVAL_SECONDS` (30) and drops one silent for 90 s, so a hold past
    /// 90 s proves the Pongs keep connections alive.
    public var holdSeconds = 60.0
    /// `/proc/<pid>/status` VmRSS of this process is read before and while holding.
    public var serverPid: Int32?

    public init() {}

    func validate() throws(BenchError) {
        guard connections >= 1 else { throw .invalidOption("--connections must be at least 1") }
        guard holdSeconds >= 0 else { throw .invalidOption("--hold must be ≥ 0") }
    }
}
