import Foundation
import Synchronization
import WhisperOps
import WhisperRuntime

/// PostgreSQL access for the whole process.
///
/// Threading design, two paths:
/// - A single statement issued on an event loop (every store's `query`: logins, key
///   look-ups, reports, backups, attachments) runs on one of that loop's own sessions (the
///   least busy of `sessionsPerLoop`), a `PostgresPipeline`: non-blocking libpq in pipeline
///   mode on the loop's epoll, so the statement costs no thread hand-off and statements of
///   one iteration share a round trip. A slow statement delays only the statements queued
///   behind it on that session, never the loop's sockets, timers and Redis traffic.
/// - Transactions and `withConnection` bodies (several statements with logic between them:
///   group changes, admin writes, migrations) and the `async` API run in blocking mode on
///   a small pool of worker threads (default 4), one connection each. A loop hands such a
///   job to the pool's bounded queue and gets its completion back through `loop.execute`.
///
/// Failure behaviour (the pipelines mirror it, see `PostgresPipeline`): a worker checks its idle connection before each job (an idle socket
/// that became readable means the server said goodbye) and reconnects with backoff
/// (`reconnectInitialMillis` doubling to `reconnectMaximumMillis`). During an outage jobs
/// fail fast with `PostgresError.connectionFailed`; once the server is back, the next job
/// reconnects. `connect_timeout`, `statement_timeout`, TCP keepalives and
/// `tcp_user_timeout` bound every blocking call.
public final class PostgresPool: Sendable {
    public let configuration: PostgresConfiguration
    private let queue: PostgresJobQueue
    private let stats = PostgresPoolStats()
    private let log: StorageLog
    private let workerCount: Int
    private let pipelines = Mutex(PipelineTable())

    private struct PipelineTable {
        var byLoop: [ObjectIdentifier: [LoopBound<PostgresPipeline>]] = [:]
        var closed = false
    }

    public convenience init(url: String, size: Int = 4, log: @escaping StorageLog = { _, _ in }) {
        self.init(configuration: PostgresConfiguration(url: url, poolSize: size), log: log)
    }

    /// Starts the worker threads; each connects in the background, so this never blocks.
    public init(configuration: PostgresConfiguration, log: @escaping StorageLog = { _, _ in }) {
        self.configuration = configuration
        self.log = log
        workerCount = max(1, configuration.poolSize)
        queue = PostgresJobQueue(limit: configuration.maxQueuedJobs)
        for index in 0..<workerCount {
            NamedThread.start("whisper-pg-\(index)") { [queue, stats] in
                PostgresWorker(index: index, configuration: configuration, queue: queue,
                               stats: stats, log: log).run()
            }
        }
    }

    deinit {
        shutdown()
    }

    /// Successful reconnects since start (for a metrics counter).
    public var reconnectCount: Int { stats.reconnects.load(ordering: .relaxed) }

    /// Workers currently holding a healthy connection.
    public var connectedWorkers: Int { stats.connectedWorkers.load(ordering: .relaxed) }

    /// Fails queued jobs with `.poolClosed`; workers finish their current job and exit. Each
    /// loop's session is closed on its loop (call this before stopping the loops).
    public func shutdown() {
        queue.close(workers: workerCount)
        let sessions = pipelines.withLock { table in
            table.closed = true
            defer { table.byLoop = [:] }
            return table.byLoop.values.flatMap { $0 }
        }
        for session in sessions { session.deliver { $0.close() } }
    }

    // MARK: Event-loop API (completion on `loop`)

    /// Runs one parameterized statement on the least busy of the loop's own sessions (a worker
    /// when called off the loop or with `sessionsPerLoop` 0); `completion` runs on `loop`,
    /// always asynchronously.
    public func query(_ sql: String, _ parameters: [PostgresValue?] = [], on loop: EventLoop,
                      _ completion: @escaping (Result<PostgresRows, PostgresError>) -> Void) {
        if configuration.sessionsPerLoop > 0, loop.inEventLoop,
           let chosen = pipelines(for: loop)?.min(by: { $0.value.rank < $1.value.rank }) {
            return chosen.value.query(sql, parameters, completion)
        }
        withConnection(on: loop, { connection throws(PostgresError) in
            try connection.query(sql, parameters)
        }, completion)
    }

    /// Runs `body` on a worker inside BEGIN … COMMIT (ROLLBACK when it throws).
    public func transaction<T: Sendable>(on loop: EventLoop,
                                         _ body: @escaping @Sendable (PostgresConnection) throws(PostgresError) -> T,
                                         _ completion: @escaping (Result<T, PostgresError>) -> Void) {
        withConnection(on: loop, { connection throws(PostgresError) in
            try Self.inTransaction(connection, body)
        }, completion)
    }

    /// Runs `body` with a worker's connection (several statements, one session).
    public func withConnection<T: Sendable>(on loop: EventLoop,
                                            _ body: @escaping @Sendable (PostgresConnection) throws(PostgresError) -> T,
                                            _ completion: @escaping (Result<T, PostgresError>) -> Void) {
        let reply = LoopBound(completion, loop: loop)
        submit(
            run: { connection in
                let result = Result { () throws(PostgresError) -> T in try body(connection) }
                reply.deliver { $0(result) }
            },
            fail: { error in reply.deliver { $0(.failure(error)) } })
    }

    /// `SELECT 1` for /ready; `completion(false)` on any error.
    public func ping(on loop: EventLoop, _ completion: @escaping (Bool) -> Void) {
        query("SELECT 1", on: loop) { result in
            if case .success = result { completion(true) } else { completion(false) }
        }
    }

    // MARK: async API (tools, migrations, tests; not the hot path)

    public func query(_ sql: String, _ parameters: [PostgresValue?] = []) async throws(PostgresError) -> PostgresRows {
        try await withConnection { connection throws(PostgresError) in try connection.query(sql, parameters) }
    }

    public func transaction<T: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection) throws(PostgresError) -> T
    ) async throws(PostgresError) -> T {
        try await withConnection { connection throws(PostgresError) in try Self.inTransaction(connection, body) }
    }

    public func withConnection<T: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection) throws(PostgresError) -> T
    ) async throws(PostgresError) -> T {
        let result: Result<T, PostgresError> = await withCheckedContinuation { continuation in
            submit(
                run: { connection in
                    continuation.resume(returning: Result { () throws(PostgresError) -> T in try body(connection) })
                },
                fail: { continuation.resume(returning: .failure($0)) })
        }
        return try result.get()
    }

    public func ping() async -> Bool {
        (try? await query("SELECT 1")) != nil
    }

    // MARK: Internals

    /// The loop's sessions (`sessionsPerLoop`, at least one), made on its first statement, each
    /// connecting on its own first statement; nil once the pool is shut down.
    private func pipelines(for loop: EventLoop) -> [LoopBound<PostgresPipeline>]? {
        pipelines.withLock { table in
            if let sessions = table.byLoop[ObjectIdentifier(loop)] { return sessions }
            guard !table.closed else { return nil }
            let sessions = (0..<configuration.sessionsPerLoop).map { index in
                LoopBound(PostgresPipeline(loop: loop, session: index, configuration: configuration, stats: stats, log: log),
                          loop: loop)
            }
            table.byLoop[ObjectIdentifier(loop)] = sessions
            return sessions
        }
    }

    private func submit(run: @escaping @Sendable (PostgresConnection) -> Void,
                        fail: @escaping @Sendable (PostgresError) -> Void) {
        queue.push(PostgresJob(enqueuedAt: MonotonicClock.now(), run: run, fail: fail))
    }

    static func inTransaction<T>(_ connection: PostgresConnection,
                                 _ body: (PostgresConnection) throws(PostgresError) -> T) throws(PostgresError) -> T {
        _ = try connection.query("BEGIN")
        let value: T
        do {
            value = try body(connection)
        } catch {
            // Best effort: on a broken connection the server has rolled back already.
            if connection.isOK { _ = try? connection.query("ROLLBACK") }
            throw error
        }
        _ = try connection.query("COMMIT")
        return value
    }
}
