/// The outcome of a batch of logins: successes, failures by label, and how long each took
/// from the start of its connect to its `register_ack`.
public struct LoginTally: Sendable {
    public var succeeded = 0
    public var failures = ErrorTally()
    var latency = LatencyRecorder()

    public init() {}

    public var attempted: Int { succeeded + failures.total }
    public var latencySummary: LatencySummary { latency.summary }

    mutating func merge(_ other: LoginTally) {
        succeeded += other.succeeded
        failures.merge(other.failures)
        latency.merge(other.latency)
    }

    static func merged(_ tallies: [LoginTally]) -> LoginTally {
        var total = LoginTally()
        for tally in tallies { total.merge(tally) }
        return total
    }
}
