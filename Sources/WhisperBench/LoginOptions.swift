/// `whisper-bench login`: registrations, then recovery logins of the same identities.
public struct LoginOptions: Sendable {
    public var logins = 2_000
    /// Logins in flight at once, each on its own connection (a phone connects, sends
    /// `register_begin` and `register_proof` on that connection, and here disconnects).
    public var concurrency = 64

    public init() {}

    func validate() throws(BenchError) {
        guard logins >= 1 else { throw .invalidOption("--logins must be at least 1") }
        guard concurrency >= 1 else { throw .invalidOption("--concurrency must be at least 1") }
    }
}
