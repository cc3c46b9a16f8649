#if canImport(Glibc)
@preconcurrency import Glibc
#endif
internal import CHiredis
import WhisperOps
import WhisperRuntime

/// One hiredis async context driven by an `EventLoop` (PLATFORM-NOTES, "hiredis async on
/// your own loop"). Loop-confined. Lives from `open` until hiredis runs the `cleanup` hook —
/// after an I/O error, a failed connect, or our own `close` — and reports that once through
/// `onClosed`, at the end of the loop iteration, outside any hiredis frame.
///
/// hiredis asks for readiness through `ev.addRead/delRead/addWrite/delWrite`; we turn that
/// into epoll interest. Once connected, `addWrite` does not arm EPOLLOUT: the owner's
/// before-sleep hook calls `flushIfNeeded`, so every command issued in an iteration leaves
/// in one `write`, and EPOLLOUT is armed only for what a full socket left behind.
///
/// In-flight commands sit in a FIFO beside hiredis's own callback list (replies come in
/// send order), each with a deadline; one loop timer watches the oldest.
final class RedisConnection: IOHandler {
    /// The reply is valid only during the call (`RedisReply`).
    typealias Completion = (Result<RedisReply, RedisError>) -> Void

    private struct InFlight {
        let deadline: UInt64
        let completion: Completion
    }

    private enum Phase { case connecting, connected, closed }

    let loop: EventLoop
    private let timeoutNanos: UInt64
    private var context: UnsafeMutablePointer<redisAsyncContext>?
    private var phase = Phase.connecting
    /// Connected and not torn down: hiredis may already have dropped a connection whose
    /// owner has not been told yet (that report comes at the end of the iteration).
    var isOpen: Bool { phase == .connected }
    private var registration: IORegistration?
    private var interest: IOEvents = []
    private var flushPending = false
    private var flushing = false
    private var inFlight = RingBuffer<InFlight>()
    private var timer: TimerID?
    /// What in-flight commands fail with when hiredis hands their callbacks a NULL reply.
    private var failure = RedisError.disconnected
    private var closeReason: String?
    /// Keeps this object alive while hiredis holds pointers to it (ev.data, privdata);
    /// released at the end of the iteration in which `cleanup` ran.
    private var selfReference: Unmanaged<RedisConnection>?

    var onConnected: (() -> Void)?
    var onClosed: ((String) -> Void)?
    /// Pub/sub: `(channel, payload)` for each `message` push.
    var onMessage: (([UInt8], [UInt8]) -> Void)?

    var isConnected: Bool { phase == .connected }

    /// hiredis writes with plain `write(2)`, which raises SIGPIPE on a socket the server
    /// closed. A server process ignores it anyway; a library cannot count on that.
    private static let ignoreSIGPIPE: Void = {
        _ = signal(SIGPIPE, SIG_IGN)
    }()

    private init(loop: EventLoop, timeoutNanos: UInt64) {
        self.loop = loop
        self.timeoutNanos = timeoutNanos
    }

    /// Starts a non-blocking connect. Immediate failures (bad address, refused at once)
    /// return `.failure`; later ones arrive through `onClosed`. `configure` sets the
    /// callbacks before anything can fire.
    static func open(host: String, port: Int, loop: EventLoop, timeoutNanos: UInt64,
                     configure: (RedisConnection) -> Void) -> Result<RedisConnection, RedisStartFailure> {
        _ = ignoreSIGPIPE
        guard let portValue = Int32(exactly: port), let ac = redisAsyncConnect(host, portValue) else {
            return .failure(RedisStartFailure(reason: "cannot create hiredis context"))
        }
        if ac.pointee.err != 0 {
            let reason = ac.pointee.errstr.map { String(cString: $0) } ?? "connect failed"
            redisAsyncFree(ac)
            return .failure(RedisStartFailure(reason: reason))
        }
        let connection = RedisConnection(loop: loop, timeoutNanos: timeoutNanos)
        configure(connection)
        connection.attach(ac)
        return .success(connection)
    }

    /// Hooks first, then the connect callback: `redisAsyncSetConnectCallback` calls
    /// `addWrite` at once, and the fd must be registered by then.
    private func attach(_ ac: UnsafeMutablePointer<redisAsyncContext>) {
        context = ac
        let retained = Unmanaged.passRetained(self)
        selfReference = retained
        Self.installHooks(ac, retained.toOpaque())
        do {
            registration = try loop.register(ac.pointee.c.fd, interest: interest, handler: self)
        } catch {
            close(because: "epoll registration failed: \(error)")  // cleanup reports it
            return
        }
        Self.installConnectCallback(ac)
        // The TCP connect is bounded by the command timeout as well.
        timer = loop.schedule(afterNanoseconds: timeoutNanos) { [weak self] in
            guard let self, self.phase == .connecting else { return }
            self.timer = nil
            self.close(failing: .timeout, because: "connect timed out")
        }
    }

    // MARK: Commands

    /// Queues one command. False when not connected or hiredis refused it; the completion
    /// is then dropped and the caller reports the failure.
    func send(_ arguments: [[UInt8]], _ completion: @escaping Completion) -> Bool {
        var command = RedisCommand(arguments)
        return send(encoded: command.finish(), completion)
    }

    /// Queues one command already in RESP (`RedisCommand.finish`); hiredis copies the bytes.
    func send(encoded command: ArraySlice<UInt8>, _ completion: @escaping Completion) -> Bool {
        guard phase == .connected, let ac = context else { return false }
        let privdata = Unmanaged.passUnretained(self).toOpaque()
        let status = Self.withRESP(command) { bytes, length in
            redisAsyncFormattedCommand(ac, redisReplyTrampoline, privdata, bytes, length)
        }
        guard status == REDIS_OK else { return false }
        inFlight.append(InFlight(deadline: MonotonicClock.now() &+ timeoutNanos, completion: completion))
        if timer == nil { armTimeout() }
        return true
    }

    /// SUBSCRIBE / UNSUBSCRIBE. hiredis keeps one callback per channel and calls it for
    /// every message (privdata is this connection, alive as long as the context), so there
    /// is no FIFO entry and no deadline.
    func subscription(_ command: String, channels: [[UInt8]]) -> Bool {
        guard phase == .connected, let ac = context, !channels.isEmpty else { return false }
        let privdata = Unmanaged.passUnretained(self).toOpaque()
        var encoded = RedisCommand([Array(command.utf8)] + channels)
        let status = Self.withRESP(encoded.finish()) { bytes, length in
            redisAsyncFormattedCommand(ac, redisSubscriptionTrampoline, privdata, bytes, length)
        }
        return status == REDIS_OK
    }

    /// Tears the connection down; in-flight commands fail with `reason`.
    func close(failing reason: RedisError = .disconnected, because message: String) {
        guard phase != .closed, let ac = context else { return }
        failure = reason
        if closeReason == nil { closeReason = message }
        // Inside a hiredis callback this only flags the context and hiredis frees it when
        // the callback returns; `cleanup` runs either way.
        redisAsyncFree(ac)
    }

    /// Writes what hiredis buffered during this iteration (owner's before-sleep hook).
    func flushIfNeeded() {
        guard flushPending, phase == .connected, let ac = context else { return }
        flushPending = false
        flushing = true
        withExtendedLifetime(self) { redisAsyncHandleWrite(ac) }
        flushing = false
    }

    // MARK: Epoll readiness

    func ioReady(_ events: IOEvents) {
        withExtendedLifetime(self) {
            // Hang-up and errors are handled as reads: hiredis then sees EOF or SO_ERROR.
            if !events.isDisjoint(with: [.read, .hangup]), let ac = context {
                redisAsyncHandleRead(ac)
            }
            // `context` is nil when that read freed the connection: never touch it then.
            if events.contains(.write), let ac = context {
                redisAsyncHandleWrite(ac)
            }
        }
    }

    // MARK: ev hooks (called by hiredis)

    func setRead(_ on: Bool) {
        setInterest(.read, on)
    }

    func requestWrite() {
        // Before the connect completes, EPOLLOUT is how we learn it did. While a flush is
        // running, hiredis asking again means the socket is full: wait for EPOLLOUT.
        if phase == .connected, !flushing, !interest.contains(.write) {
            flushPending = true
        } else {
            setInterest(.write, true)
        }
    }

    func cancelWrite() {
        flushPending = false
        setInterest(.write, false)
    }

    /// hiredis is done with the context: it frees it right after, and runs no callback
    /// after `onDisconnect`. Idempotent.
    func cleanup() {
        guard phase != .closed, let ac = context else { return }
        let hiredisError = ac.pointee.err != 0 ? ac.pointee.errstr.map { String(cString: $0) } : nil
        let reason = hiredisError ?? closeReason ?? "closed"
        phase = .closed
        context = nil  // freed by hiredis as soon as this hook returns
        if let registration { loop.deregister(registration) }
        registration = nil
        if let timer { loop.cancel(timer) }
        timer = nil
        let retained = selfReference
        selfReference = nil
        // hiredis still runs onDisconnect with the context after this; keep the object
        // alive and report outside the hiredis frame.
        loop.deferToEndOfIteration { [self] in
            failAllInFlight()
            let report = onClosed
            onClosed = nil
            onConnected = nil
            onMessage = nil
            report?(reason)
            retained?.release()
        }
    }

    func connected(ok: Bool) {
        guard ok, phase == .connecting else { return }  // on failure cleanup follows
        phase = .connected
        if let timer { loop.cancel(timer) }
        timer = nil
        if let ac = context {
            // SO_KEEPALIVE: a quiet subscriber connection otherwise never notices a dead peer.
            _ = redisEnableKeepAlive(&ac.pointee.c)
        }
        onConnected?()
    }

    // MARK: Replies

    func reply(_ reply: UnsafeMutablePointer<redisReply>?) {
        guard let entry = inFlight.popFirst() else { return }
        if let reply {
            entry.completion(.success(RedisReply(reply)))
        } else {
            entry.completion(.failure(failure))
        }
    }

    func pushed(_ reply: UnsafeMutablePointer<redisReply>?) {
        // NULL: the context is being freed; each channel callback gets one. Nothing to do.
        guard let reply, case .array(let items?) = RedisValue(reply: reply), items.count == 3,
              case .bulk(let kind?) = items[0], kind == Array("message".utf8),
              case .bulk(let channel?) = items[1], case .bulk(let payload?) = items[2]
        else { return }
        onMessage?(channel, payload)
    }

    // MARK: Private

    private func setInterest(_ event: IOEvents, _ on: Bool) {
        var wanted = interest
        if on { wanted.insert(event) } else { wanted.remove(event) }
        guard wanted != interest else { return }
        interest = wanted
        guard let registration else { return }  // applied at registration
        do {
            try loop.update(registration, interest: wanted)
        } catch {
            close(because: "epoll update failed: \(error)")
        }
    }

    /// One timer for all in-flight commands, set for the oldest deadline. When it fires
    /// early for a newer head it re-arms; when the head is overdue the connection is
    /// considered broken (a reply can no longer be matched to anything newer).
    private func armTimeout() {
        guard phase == .connected, let head = inFlight.first else { return }
        let now = MonotonicClock.now()
        let delay = head.deadline > now ? head.deadline - now : 0
        timer = loop.schedule(afterNanoseconds: delay) { [weak self] in
            guard let self else { return }
            self.timer = nil
            guard let head = self.inFlight.first else { return }
            if head.deadline <= MonotonicClock.now() {
                self.close(failing: .timeout, because: "no reply within \(self.timeoutNanos / 1_000_000) ms")
            } else {
                self.armTimeout()
            }
        }
    }

    /// Completions hiredis did not call (defensive: it normally calls each with NULL).
    private func failAllInFlight() {
        while let entry = inFlight.popFirst() {
            entry.completion(.failure(failure))
        }
    }
}
