import WhisperOps

/// The body of one pool thread: takes jobs, keeps its connection healthy, and reconnects
/// with bounded backoff. While the server is unreachable and the backoff has not expired,
/// jobs fail at once with `connectionFailed` instead of queueing behind connect attempts.
final class PostgresWorker {
    private let index: Int
    private let configuration: PostgresConfiguration
    private let queue: PostgresJobQueue
    private let log: StorageLog
    private var connection: PostgresConnection?
    private var reconnects: PostgresReconnects

    init(index: Int, configuration: PostgresConfiguration, queue: PostgresJobQueue,
         stats: PostgresPoolStats, log: @escaping StorageLog) {
        self.index = index
        self.configuration = configuration
        self.queue = queue
        self.log = log
        reconnects = PostgresReconnects(owner: "postgres worker \(index)", configuration: configuration, stats: stats, log: log)
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
        if let refusal = reconnects.refusal { throw refusal }
        do {
            let fresh = try PostgresConnection.connect(configuration)
            connection = fresh
            reconnects.connected()
            return fresh
        } catch {
            reconnects.connectFailed(error)
            throw error
        }
    }

    private func drop() {
        guard let connection else { return }
        connection.close()
        self.connection = nil
        reconnects.dropped()
    }
}
