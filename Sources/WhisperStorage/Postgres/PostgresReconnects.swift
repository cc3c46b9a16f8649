import WhisperOps

/// The connection bookkeeping a pool worker and a loop's session share: after a failed
/// connect, attempts wait out an exponential backoff (statements meanwhile fail fast
/// instead of queueing behind connect attempts); the pool's counters and the log lines.
struct PostgresReconnects {
    /// "postgres worker 2", "postgres loop 0": the log lines' subject.
    private let owner: String
    private let url: String
    private let stats: PostgresPoolStats
    private let log: StorageLog
    private var backoff: Backoff
    private var nextAttemptAt: UInt64 = 0
    private var lastFailure = ""
    /// Set once a connection has existed, so later successes count as reconnects.
    private var hadConnection = false

    init(owner: String, configuration: PostgresConfiguration, stats: PostgresPoolStats, log: @escaping StorageLog) {
        self.owner = owner
        url = configuration.redactedURL
        self.stats = stats
        self.log = log
        backoff = Backoff(initialNanos: nanoseconds(fromMillis: configuration.reconnectInitialMillis, minimum: 1),
                          maximumNanos: nanoseconds(fromMillis: configuration.reconnectMaximumMillis, minimum: 1))
    }

    /// Why no connect may be attempted now (a backoff is running), or nil.
    var refusal: PostgresError? {
        guard MonotonicClock.now() < nextAttemptAt else { return nil }
        return .connectionFailed("reconnect backoff after: \(lastFailure)")
    }

    mutating func connected() {
        stats.connectedWorkers.add(1, ordering: .relaxed)
        if hadConnection {
            stats.reconnects.add(1, ordering: .relaxed)
            log(.info, "\(owner): reconnected to \(url)")
        }
        hadConnection = true
        backoff.reset()
        nextAttemptAt = 0
    }

    mutating func connectFailed(_ error: PostgresError) {
        lastFailure = error.description
        nextAttemptAt = MonotonicClock.now() &+ backoff.next()
        log(.warning, "\(owner): connect to \(url) failed: \(error)")
    }

    /// A connection counted by `connected()` was closed.
    func dropped() {
        stats.connectedWorkers.subtract(1, ordering: .relaxed)
    }
}
