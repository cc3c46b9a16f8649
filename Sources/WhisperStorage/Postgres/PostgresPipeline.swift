internal import CPostgres
import WhisperOps
import WhisperRuntime

/// One of an event loop's own PostgreSQL sessions, for the single statements the loop's stores
/// issue (`PostgresPool.query(_:_:on:_:)`). libpq runs non-blocking in pipeline mode with
/// its socket on the loop's epoll: a statement is written (prepared on first use) followed
/// by a Sync, so each is its own implicit transaction and one failure cannot abort
/// another; its result is read when the socket turns readable and the completion runs
/// right there. No worker thread and no hand-off in either direction, and statements from
/// one iteration share the session without waiting for each other's round trip.
/// Multi-statement transactions still run on the pool's workers.
///
/// Failure behaviour follows the workers': connects on demand on a short-lived thread (so
/// name resolution and the handshake never block the loop; statements wait for it), fails
/// statements at once with `connectionFailed` while a failed connect's backoff runs, fails
/// everything in flight when the session is lost, and gives the statement at the head of
/// the session a deadline (`statement_timeout` plus the queue timeout) after which the
/// session is dropped — a server that stopped answering behind a live TCP connection.
/// Loop-confined.
final class PostgresPipeline: IOHandler {
    typealias Completion = (Result<PostgresRows, PostgresError>) -> Void

    private enum State {
        case idle
        case connecting
        case ready(PostgresConnection, IORegistration)
        case closed
    }

    /// What the session owes us, in send order: each command's results end with a NULL
    /// result from libpq, each Sync with one `PGRES_PIPELINE_SYNC`.
    private enum Expected {
        case prepare(PostgresConnection.PreparedKey, name: String)
        /// `name`: the prepared statement it runs, nil when run unprepared.
        case statement(Completion, name: String?)
        case sync
    }

    /// A statement that arrived while the session was being established.
    private struct Waiting {
        let sql: String
        let parameters: [PostgresValue?]
        let completion: Completion
    }

    let loop: EventLoop
    private let configuration: PostgresConfiguration
    private let log: StorageLog
    private var state = State.idle
    private var waiting = RingBuffer<Waiting>()
    private var expected = RingBuffer<Expected>()
    /// Statements in `expected`.
    private var inFlight = 0
    /// The answer of the command whose results are being read (its first result).
    private var outcome: Result<PostgresRows, PostgresError>?
    /// Why a prepare failed, by statement name: the statements sent to run it (aborted, or
    /// told it does not exist) report this instead. Emptied whenever nothing is in flight.
    private var failedPrepares: [String: PostgresError] = [:]
    /// Since when the statement at the head of the session has been the head.
    private var headSince: UInt64 = 0
    private var deadlineTimer: TimerID?
    private let deadlineNanos: UInt64
    private var wantsWrite = false
    private var reconnects: PostgresReconnects

    /// How the pool picks among a loop's sessions, lowest first (the first of equals, so a quiet
    /// loop keeps to one session and the others never connect): a session whose failed connect's
    /// backoff still runs — a statement given to it would fail at once — comes after every other,
    /// then fewer statements queued or in flight wins.
    var rank: (backingOff: Int, load: Int) {
        var backingOff = 0
        if case .idle = state, reconnects.refusal != nil { backingOff = 1 }
        return (backingOff, inFlight + waiting.count)
    }

    init(loop: EventLoop, session: Int, configuration: PostgresConfiguration, stats: PostgresPoolStats,
         log: @escaping StorageLog) {
        self.loop = loop
        self.configuration = configuration
        self.log = log
        let budget = configuration.statementTimeoutMillis > 0
            ? configuration.statementTimeoutMillis + configuration.queueTimeoutMillis : 0
        deadlineNanos = nanoseconds(fromMillis: budget)
        reconnects = PostgresReconnects(owner: "postgres loop \(loop.index) session \(session)", configuration: configuration, stats: stats, log: log)
    }

    // MARK: Statements

    /// Runs one parameterized statement; `completion` runs on the loop, always later.
    func query(_ sql: String, _ parameters: [PostgresValue?], _ completion: @escaping Completion) {
        switch state {
        case .closed:
            failSoon(completion, .poolClosed)
        case .ready(let connection, _):
            guard inFlight < configuration.maxQueuedJobs else { return failSoon(completion, .overloaded) }
            send(sql, parameters, completion, on: connection)
        case .idle, .connecting:
            guard waiting.count < configuration.maxQueuedJobs else { return failSoon(completion, .overloaded) }
            if case .idle = state {
                if let refusal = reconnects.refusal { return failSoon(completion, refusal) }
                connect()
            }
            waiting.append(Waiting(sql: sql, parameters: parameters, completion: completion))
        }
    }

    /// Fails what is queued or in flight with `.poolClosed` and closes the session.
    func close() {
        let owed = takeOwed()
        if case .ready(let connection, let registration) = state { drop(connection, registration) }
        state = .closed
        if let deadlineTimer { loop.cancel(deadlineTimer) }
        deadlineTimer = nil
        failLater(owed, .poolClosed)
    }

    private func send(_ sql: String, _ parameters: [PostgresValue?], _ completion: @escaping Completion,
                      on connection: PostgresConnection) {
        guard let handle = connection.handle else { return failSoon(completion, .connectionFailed("connection closed")) }
        let encoded: PostgresParameters
        do {
            encoded = try PostgresParameters(parameters)
        } catch {
            return failSoon(completion, error)
        }
        let key = PostgresConnection.PreparedKey(sql: sql, types: encoded.types)
        var name = connection.prepared[key]
        if name == nil, connection.prepared.count < PostgresConnection.maxPreparedStatements {
            let fresh = connection.nextStatementName()
            let prepared = encoded.withTypesAndValues { count, types, _ in PQsendPrepare(handle, fresh, sql, count, types) }
            guard prepared == 1 else { return failAfterLoss(completion, connection) }
            // Recorded now so the statements behind it in this iteration reuse it; forgotten
            // again if the server refuses it.
            connection.prepared[key] = fresh
            expected.append(.prepare(key, name: fresh))
            name = fresh
        }
        let sent = if let name {
            encoded.withValues { PQsendQueryPrepared(handle, name, $0, $1, nil, nil, 0) }
        } else {
            encoded.withTypesAndValues { PQsendQueryParams(handle, sql, $0, $1, $2, nil, nil, 0) }
        }
        guard sent == 1 else { return failAfterLoss(completion, connection) }
        if inFlight == 0 { headSince = loop.now }
        expected.append(.statement(completion, name: name))
        inFlight += 1
        // PQpipelineSync also pushes what is buffered out (non-blocking: as much as fits).
        guard PQpipelineSync(handle) == 1 else { return lose(.connectionFailed(connection.lastErrorMessage)) }
        expected.append(.sync)
        flush(handle)
        armDeadline()
    }

    /// A send failed on a session libpq considers broken: the statement fails with the rest.
    private func failAfterLoss(_ completion: @escaping Completion, _ connection: PostgresConnection) {
        let error = PostgresError.connectionFailed(connection.lastErrorMessage)
        failSoon(completion, error)
        lose(error)
    }

    // MARK: Socket

    func ioReady(_ events: IOEvents) {
        guard case .ready(let connection, _) = state, let handle = connection.handle else { return }
        if wantsWrite {
            flush(handle)
            guard case .ready = state else { return }
        }
        guard !events.isDisjoint(with: [.read, .hangup]) else { return }
        guard PQconsumeInput(handle) == 1, PQstatus(handle) == CONNECTION_OK else {
            return lose(.connectionFailed(connection.lastErrorMessage))
        }
        readResults(connection, handle)
    }

    private func flush(_ handle: OpaquePointer) {
        switch PQflush(handle) {
        case 0: setWantsWrite(false)
        case 1: setWantsWrite(true)
        default:
            if case .ready(let connection, _) = state { lose(.connectionFailed(connection.lastErrorMessage)) }
        }
    }

    private func setWantsWrite(_ wanted: Bool) {
        guard wanted != wantsWrite, case .ready(_, let registration) = state else { return }
        wantsWrite = wanted
        do {
            try loop.update(registration, interest: wanted ? [.read, .write] : .read)
        } catch {
            lose(.connectionFailed("epoll: \(error)"))
        }
    }

    /// Takes every result libpq has complete, in order, and answers each statement.
    private func readResults(_ connection: PostgresConnection, _ handle: OpaquePointer) {
        while let head = expected.first, PQisBusy(handle) == 0 {
            let result = PQgetResult(handle)
            switch head {
            case .sync:
                let status = result.map(PQresultStatus)
                PQclear(result)
                guard status == PGRES_PIPELINE_SYNC else {
                    return lose(.connectionFailed("pipeline out of step: expected a sync point"))
                }
                _ = expected.popFirst()
                if inFlight == 0 { failedPrepares.removeAll() }
            case .prepare(let key, let name):
                if let result {
                    record(result, of: connection, running: nil)
                    continue
                }
                _ = expected.popFirst()
                if case .failure(let error) = outcome {
                    connection.prepared[key] = nil
                    failedPrepares[name] = error
                }
                outcome = nil
            case .statement(let completion, let name):
                if let result {
                    record(result, of: connection, running: name)
                    continue
                }
                _ = expected.popFirst()
                inFlight -= 1
                headSince = loop.now
                let answer = outcome ?? .failure(.connectionFailed("no result for a statement"))
                outcome = nil
                completion(answer)
                // The completion may have sent, lost or closed the session.
                guard case .ready(let current, _) = state, current === connection else { return }
            }
        }
    }

    /// Keeps a command's first result (its rows or its error) and clears the rest. A
    /// statement whose prepared statement could not be made reports why.
    private func record(_ result: OpaquePointer, of connection: PostgresConnection, running name: String?) {
        guard outcome == nil else { return PQclear(result) }
        let prepareError = name.flatMap { failedPrepares[$0] }
        if PQresultStatus(result) == PGRES_PIPELINE_ABORTED {
            PQclear(result)
            outcome = .failure(prepareError ?? .queryFailed(sqlState: "25P02", message: "an earlier command of its pipeline failed"))
            return
        }
        outcome = Result { () throws(PostgresError) in try connection.consume(result) }
        if let prepareError, case .failure(.queryFailed(sqlState: "26000", _)) = outcome {
            outcome = .failure(prepareError)
        }
    }

    // MARK: Session

    private func connect() {
        state = .connecting
        let configuration = configuration
        let pipeline = LoopBound(self, loop: loop)
        NamedThread.start("whisper-pg-conn") {
            let opened = Result { () throws(PostgresError) in try PostgresConnection.connect(configuration) }
            let handOver = LoopBound(opened, loop: pipeline.loop)
            pipeline.loop.execute { pipeline.value.established(handOver.value) }
        }
    }

    private func established(_ opened: Result<PostgresConnection, PostgresError>) {
        guard case .connecting = state else {
            if case .success(let connection) = opened { connection.close() }
            return
        }
        let connection: PostgresConnection
        let registration: IORegistration
        do {
            connection = try opened.get()
            registration = try register(connection)
        } catch {
            return connectFailed(error)
        }
        state = .ready(connection, registration)
        reconnects.connected()
        while case .ready(let current, _) = state, let next = waiting.popFirst() {
            send(next.sql, next.parameters, next.completion, on: current)
        }
    }

    /// Puts a fresh blocking-mode connection into non-blocking pipeline mode on the loop.
    private func register(_ connection: PostgresConnection) throws(PostgresError) -> IORegistration {
        guard let handle = connection.handle, PQsetnonblocking(handle, 1) == 0, PQenterPipelineMode(handle) == 1 else {
            connection.close()
            throw .connectionFailed("could not enter pipeline mode")
        }
        do {
            return try loop.register(PQsocket(handle), interest: .read, handler: self)
        } catch {
            connection.close()
            throw .connectionFailed("epoll: \(error)")
        }
    }

    private func connectFailed(_ error: PostgresError) {
        state = .idle
        reconnects.connectFailed(error)
        failLater(takeOwed(), error)
    }

    /// The session is gone (or no longer trusted): everything sent on it fails with `error`
    /// — whether each statement ran is unknown, as with a worker's lost connection — and one
    /// reconnect starts at once, so a restart nobody queried through is healed before the
    /// next statement.
    private func lose(_ error: PostgresError) {
        guard case .ready(let connection, let registration) = state else { return }
        log(.warning, "postgres loop \(loop.index): session lost (\(error)); reconnecting")
        drop(connection, registration)
        state = .idle
        failLater(takeOwed(), error)
        connect()
    }

    private func drop(_ connection: PostgresConnection, _ registration: IORegistration) {
        loop.deregister(registration)
        connection.close()
        wantsWrite = false
        reconnects.dropped()
    }

    /// Every completion still owed, in order; the session's bookkeeping reset.
    private func takeOwed() -> [Completion] {
        var owed: [Completion] = []
        while let next = expected.popFirst() {
            if case .statement(let completion, _) = next { owed.append(completion) }
        }
        while let next = waiting.popFirst() { owed.append(next.completion) }
        inFlight = 0
        outcome = nil
        failedPrepares.removeAll()
        return owed
    }

    // MARK: Deadline

    private func armDeadline() {
        guard deadlineNanos > 0, deadlineTimer == nil else { return }
        deadlineTimer = loop.schedule(afterNanoseconds: 1_000_000_000) { [weak self] in self?.checkDeadline() }
    }

    private func checkDeadline() {
        deadlineTimer = nil
        guard inFlight > 0 else { return }
        if loop.now &- headSince > deadlineNanos {
            lose(.timeout)
        } else {
            armDeadline()
        }
    }

    // MARK: Completions

    private func failSoon(_ completion: @escaping Completion, _ error: PostgresError) {
        loop.deferToEndOfIteration { completion(.failure(error)) }
    }

    private func failLater(_ owed: [Completion], _ error: PostgresError) {
        guard !owed.isEmpty else { return }
        loop.deferToEndOfIteration { for completion in owed { completion(.failure(error)) } }
    }
}
