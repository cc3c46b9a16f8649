import Synchronization
import WhisperRuntime

/// Connection state other threads may read (/ready, metrics).
final class RedisConnectionStatus: Sendable {
    let connected = Atomic<Bool>(false)
    let reconnects = Atomic<Int>(0)
}

/// Keeps one `RedisConnection` usable: connect, handshake (AUTH, SELECT), ready; after a
/// loss or a failed attempt, reconnect with exponential backoff and jitter, driven by loop
/// timers. Loop-confined; shared by `RedisClient` and `RedisSubscriber`.
final class RedisLink {
    private enum State {
        case idle
        case connecting(RedisConnection)
        case ready(RedisConnection)
        case waiting(TimerID)
        case closed
    }

    let loop: EventLoop
    let configuration: RedisConfiguration
    let status: RedisConnectionStatus
    private let name: String
    private let selectsDatabase: Bool
    private let log: StorageLog
    /// The TLS context, made once (reading its files) when the link is created.
    private let tls: Result<ClientTLS?, TLSConfigError>
    private var state = State.idle
    private var backoff: Backoff
    private var hadConnection = false
    /// Failed attempts since the last ready connection: only the first (and every 50th)
    /// is a warning, so an outage does not flood the log.
    private var failedAttempts = 0

    /// Called once per established connection, after the handshake.
    var onReady: ((RedisConnection) -> Void)?
    /// Pub/sub pushes, for the subscriber.
    var onMessage: (([UInt8], [UInt8]) -> Void)?

    init(name: String, configuration: RedisConfiguration, loop: EventLoop, selectsDatabase: Bool,
         status: RedisConnectionStatus, log: @escaping StorageLog) {
        self.name = name
        self.configuration = configuration
        self.loop = loop
        self.selectsDatabase = selectsDatabase
        self.status = status
        self.log = log
        tls = Result { () throws(TLSConfigError) in try configuration.clientTLS() }
        backoff = Backoff(initialNanos: nanoseconds(fromMillis: configuration.reconnectInitialMillis, minimum: 1),
                          maximumNanos: nanoseconds(fromMillis: configuration.reconnectMaximumMillis, minimum: 1))
    }

    /// The connection when ready for commands (not one that has just closed).
    var ready: RedisConnection? {
        if case .ready(let connection) = state, connection.isOpen { return connection }
        return nil
    }

    func start() {
        guard case .idle = state else { return }
        connect()
    }

    func close() {
        switch state {
        case .connecting(let connection), .ready(let connection):
            state = .closed
            connection.close(failing: .closed, because: "closed by owner")
        case .waiting(let timer):
            loop.cancel(timer)
            state = .closed
        case .idle, .closed:
            state = .closed
        }
        status.connected.store(false, ordering: .releasing)
    }

    // MARK: Private

    private var timeoutNanos: UInt64 {
        nanoseconds(fromMillis: configuration.commandTimeoutMillis, minimum: 1)
    }

    private func connect() {
        let tls: ClientTLS?
        do {
            tls = try self.tls.get()
        } catch {
            noteFailure("TLS settings: \(error)")
            return scheduleReconnect()
        }
        let result = RedisConnection.open(host: configuration.host, port: configuration.port, tls: tls, loop: loop,
                                          timeoutNanos: timeoutNanos) { connection in
            connection.onConnected = { [weak self, weak connection] in
                guard let self, let connection else { return }
                self.handshake(connection)
            }
            connection.onClosed = { [weak self, weak connection] reason in
                guard let self, let connection else { return }
                self.lost(connection, reason)
            }
            connection.onMessage = { [weak self] channel, payload in self?.onMessage?(channel, payload) }
        }
        switch result {
        case .success(let connection):
            state = .connecting(connection)
        case .failure(let failure):
            noteFailure("connect failed: \(failure.reason)")
            scheduleReconnect()
        }
    }

    private func handshake(_ connection: RedisConnection) {
        var commands: [[[UInt8]]] = []
        if let password = configuration.password {
            if let username = configuration.username {
                commands.append([Array("AUTH".utf8), Array(username.utf8), Array(password.utf8)])
            } else {
                commands.append([Array("AUTH".utf8), Array(password.utf8)])
            }
        }
        if selectsDatabase, configuration.database != 0 {
            commands.append([Array("SELECT".utf8), Array(String(configuration.database).utf8)])
        }
        // Ready means Redis has answered: over TLS 1.3 a server that refuses our client
        // certificate says so only after our side of the handshake has completed.
        if commands.isEmpty { commands.append([Array("PING".utf8)]) }
        var remaining = commands.count
        for command in commands {
            let sent = connection.send(command) { [weak self, weak connection] result in
                guard let self, let connection else { return }
                switch result.map(\.value) {
                case .success(.error(let message)):
                    // The server's words only (e.g. WRONGPASS); never the password.
                    self.log(.error, "\(self.name) \(self.configuration.redactedDescription): handshake refused: \(message)")
                    connection.close(because: "handshake refused")
                case .success:
                    remaining -= 1
                    if remaining == 0 { self.becomeReady(connection) }
                case .failure:
                    break  // the connection is going away; lost() follows
                }
            }
            guard sent else {
                connection.close(because: "handshake could not be sent")
                return
            }
        }
    }

    private func becomeReady(_ connection: RedisConnection) {
        guard case .connecting(let current) = state, current === connection else { return }
        state = .ready(connection)
        backoff.reset()
        failedAttempts = 0
        status.connected.store(true, ordering: .releasing)
        if hadConnection {
            status.reconnects.add(1, ordering: .relaxed)
            log(.info, "\(name) \(configuration.redactedDescription): reconnected")
        } else {
            log(.info, "\(name) \(configuration.redactedDescription): connected")
        }
        hadConnection = true
        onReady?(connection)
    }

    private func lost(_ connection: RedisConnection, _ reason: String) {
        switch state {
        case .ready(let current) where current === connection:
            status.connected.store(false, ordering: .releasing)
            log(.warning, "\(name) \(configuration.redactedDescription): connection lost: \(reason)")
        case .connecting(let current) where current === connection:
            noteFailure("connect failed: \(reason)")
        default:
            return  // closed on purpose, or a stale connection
        }
        scheduleReconnect()
    }

    private func noteFailure(_ message: String) {
        failedAttempts += 1
        let level: StorageLogLevel = failedAttempts == 1 || failedAttempts % 50 == 0 ? .warning : .debug
        log(level, "\(name) \(configuration.redactedDescription): \(message) (attempt \(failedAttempts))")
    }

    private func scheduleReconnect() {
        if case .closed = state { return }
        let delay = backoff.next()
        let timer = loop.schedule(afterNanoseconds: delay) { [weak self] in
            guard let self, case .waiting = self.state else { return }
            self.connect()
        }
        state = .waiting(timer)
    }
}
