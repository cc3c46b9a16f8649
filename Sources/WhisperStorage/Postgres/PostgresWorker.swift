import WhisperOps

/// The body of one pool thread: takes jobs, keeps its connection healthy, and reconnects
/// with bounded backoff. While the server is unreachable and the backoff has not expired,
/// jobs fail at once with `connectionFailed` instead of queueing behind connect attempts.
final class PostgresWorker {
    private let index: Int
    private let configuration: PostgresConfiguration
    private let queue: PostgresJobQueue
    private let stats: PostgresPoolStats
    private let log: StorageLog
    private var connection: PostgresConnection?
    private var backoff: Backoff
    private var nextAttemptAt: UInt64 = 0
    private var lastFailure = ""
    /// Set once a connection has existed, so later successes count as reconnects.
    private var hadConnection = false

    init(index: Int, configuration: PostgresConfiguration, queue: PostgresJobQueue,
         stats: PostgresPoolStats, log: @escaping StorageLog) {
        self.index = index
        self.configuration = configuration
        self.queue = queue
        self.stats = stats
        self.log = log
        backoff = Backoff(initialNanos: nanoseconds(fromMillis: configuration.reconnectInitialMillis, minimum: 1),
                          maximumNanos: nanoseconds(fromMillis: configuration.reconnectMaximumMillis, minimum: 1))
    }

    /// Runs until the queue closes. Connects eagerly so the first request does not pay for it.
    func run() {
        _ = try? healthyConnection()
        let queueTimeout = nanoseconds(fromMillis: configuration.queueTimeoutMillis)
        while let job = queue.next() {
            if queueTimeout > 0, MonotonicClock.now() &- job.enqueuedAt > queueTimeout {
                job.fail(.timeout)
                continue
            }
            let connection: PostgresConnection
            do {
                connection = try healthyConnection()
            } catch {
                job.fail(error)
                continue
            }
            job.run(connection)
            afterJob(connection)
        }
        drop()
    }

    /// Leaves the connection clean for the next job: a bad one is dropped, and an open
    /// transaction (a job that threw between BEGIN and COMMIT) is rolled back.
    private func afterJob(_ connection: PostgresConnection) {
        if connection.isOK, connection.isInTransaction {
            _ = try? connection.query("ROLLBACK")
        }
        if !connection.isOK {
            log(.warning, "postgres worker \(index): connection lost")
            drop()
        }
    }

    private func healthyConnection() throws(PostgresError) -> PostgresConnection {
        if let connection {
            if connection.checkIdleHealth() { return connection }
            log(.warning, "postgres worker \(index): connection lost while idle; reconnecting")
            drop()
        }
        let now = MonotonicClock.now()
        if now < nextAttemptAt {
            throw .connectionFailed("reconnect backoff after: \(lastFailure)")
        }
        do {
            let fresh = try PostgresConnection.connect(configuration)
            connection = fresh
            stats.connectedWorkers.add(1, ordering: .relaxed)
            if hadConnection {
                stats.reconnects.add(1, ordering: .relaxed)
                log(.info, "postgres worker \(index): reconnected to \(configuration.redactedURL)")
            }
            hadConnection = true
            backoff.reset()
            nextAttemptAt = 0
            return fresh
        } catch {
            lastFailure = error.description
            nextAttemptAt = MonotonicClock.now() &+ backoff.next()
            log(.warning, "postgres worker \(index): connect to \(configuration.redactedURL) failed: \(error)")
            throw error
        }
    }

    private func drop() {
        guard let connection else { return }
        connection.close()
        self.connection = nil
        stats.connectedWorkers.subtract(1, ordering: .relaxed)
    }
}
