internal import CHiredis
import WhisperOps
import WhisperRuntime

/// One connection to Redis on an `EventLoop`, on the runtime's own socket I/O: the name is
/// resolved off the loop (`HostResolver`), each address is tried in turn (`Connector`, plain TCP
/// or TLS with the certificate verified), and the bytes flow through a runtime `Connection`.
/// hiredis is only the RESP reader. Loop-confined. Lives from `open` until it closes — after an
/// I/O or protocol error, a failed connect, or our own `close` — and reports that once through
/// `onClosed`, at the end of the loop iteration, outside any callback of ours.
///
/// Commands are written into the `Connection`, which flushes after the loop's before-sleep
/// hooks: every command issued in an iteration leaves in one `write`, and EPOLLOUT is armed only
/// for what a full socket left behind.
///
/// In-flight commands sit in a FIFO (replies come in send order), each with a deadline; one
/// loop timer watches the oldest. The same timer bounds the whole connect: resolving, every
/// address tried, and the TLS handshake.
final class RedisConnection: ConnectionDelegate {
    /// The reply is valid only during the call (`RedisReply`).
    typealias Completion = (Result<RedisReply, RedisError>) -> Void

    /// Bytes received but not yet a whole reply, and bytes queued but not yet written, are each
    /// capped (by default here): a connection past either is closed (its commands fail). Redis's
    /// own limit on one bulk string is 512 MiB; the relay's largest replies (pending-message
    /// batches) are a few MiB, so 64 MiB means a runaway reply or a Redis that stopped reading.
    static let maxBufferedBytes = 64 << 20

    private struct InFlight {
        let deadline: UInt64
        let completion: Completion
    }

    private enum Phase { case connecting, connected, closed }

    let loop: EventLoop
    private let tls: ClientTLS?
    private let timeoutNanos: UInt64
    private let bufferLimit: Int
    private var phase = Phase.connecting
    /// Connected and not torn down (the owner hears of a close only at the end of the iteration).
    var isOpen: Bool { phase == .connected }
    private var connection: Connection?
    private let reader: UnsafeMutablePointer<redisReader>
    /// After the first SUBSCRIBE: pub/sub pushes arrive besides the replies.
    private var subscribed = false
    /// Subscription commands not yet answered, oldest first (`PendingSubscription`).
    private var pendingSubscriptions: [PendingSubscription] = []
    private var inFlight = RingBuffer<InFlight>()
    /// Scripts this connection has sent `SCRIPT LOAD` for (their SHA-1s).
    private var loadedScripts = Set<String>()
    private var timer: TimerID?
    /// What in-flight commands fail with when the connection goes.
    private var failure = RedisError.disconnected

    var onConnected: (() -> Void)?
    var onClosed: ((String) -> Void)?
    /// Pub/sub: `(channel, payload)` for each `message` and `smessage` push.
    var onMessage: (([UInt8], [UInt8]) -> Void)?
    /// A subscription command Redis refused — `(command, its channels, the error)`, e.g.
    /// `SSUBSCRIBE` answered `MOVED 866 10.0.0.2:6379` — with the connection kept. Without a
    /// handler the connection is closed (its owner reconnects and subscribes again).
    var onSubscriptionRefused: ((_ command: String, _ channels: [[UInt8]], _ message: String) -> Void)?
    /// An `unsubscribe` / `sunsubscribe` push no command of ours asked for: Redis Cluster drops a
    /// node's sharded subscribers of a slot that has moved away (resharding, failover).
    var onUnsubscribed: ((_ channel: [UInt8]) -> Void)?

    var isConnected: Bool { phase == .connected }

    private init(tls: ClientTLS?, loop: EventLoop, timeoutNanos: UInt64, bufferLimit: Int,
                 reader: UnsafeMutablePointer<redisReader>) {
        self.tls = tls
        self.loop = loop
        self.timeoutNanos = timeoutNanos
        self.bufferLimit = bufferLimit
        self.reader = reader
    }

    deinit { redisReaderFree(reader) }

    /// Starts resolving and connecting; over TLS when `tls` is given. Failures arrive through
    /// `onClosed`. `configure` sets the callbacks before anything can fire.
    static func open(host: String, port: Int, tls: ClientTLS? = nil, loop: EventLoop, timeoutNanos: UInt64,
                     bufferLimit: Int = maxBufferedBytes,
                     configure: (RedisConnection) -> Void) -> Result<RedisConnection, RedisStartFailure> {
        guard let reader = redisReaderCreate() else {
            return .failure(RedisStartFailure(reason: "cannot create the RESP reader"))
        }
        let connection = RedisConnection(tls: tls, loop: loop, timeoutNanos: timeoutNanos, bufferLimit: bufferLimit,
                                         reader: reader)
        configure(connection)
        let deadline = MonotonicClock.now() &+ timeoutNanos
        connection.timer = loop.schedule(afterNanoseconds: timeoutNanos) { [weak connection] in
            guard let connection, connection.phase == .connecting else { return }
            connection.timer = nil
            connection.close(failing: .timeout, because: "connect timed out")
        }
        HostResolver.resolve(host, port: port, loop: loop) { [weak connection] result in
            guard let connection, connection.phase == .connecting else { return }
            switch result {
            case .success(let addresses): connection.connect(addresses[...], deadline: deadline)
            case .failure(let failure): connection.close(because: failure.description)
            }
        }
        return .success(connection)
    }

    /// Tries `addresses` one after the other until one connects, all within the connect timeout.
    private func connect(_ addresses: ArraySlice<SocketAddress>, deadline: UInt64) {
        guard let address = addresses.first else { return }
        let now = MonotonicClock.now()
        Connector.connect(loop: loop, to: address, tls: tls, keepAlive: true,
                          limits: ConnectionLimits(maxOutputBytes: bufferLimit),
                          timeoutNanoseconds: deadline > now ? deadline - now : 1) { [weak self] result in
            guard let self, self.phase == .connecting else {
                if case .success(let late) = result { late.close() }
                return
            }
            switch result {
            case .success(let connection):
                self.established(connection)
            case .failure(let error):
                // The next address may work; the last one's error is the one reported.
                if addresses.count > 1 {
                    self.connect(addresses.dropFirst(), deadline: deadline)
                } else {
                    self.close(because: error.description)
                }
            }
        }
    }

    private func established(_ connection: Connection) {
        self.connection = connection
        connection.delegate = self
        // Written every iteration the node is busy: one buffer, not a new one each time.
        connection.keepsOutputCapacity = true
        phase = .connected
        if let timer { loop.cancel(timer) }
        timer = nil
        onConnected?()
    }

    // MARK: Commands

    /// Queues one command. False when not connected (or past the output cap); the completion is
    /// then dropped and the caller reports the failure.
    func send(_ arguments: [[UInt8]], _ completion: @escaping Completion) -> Bool {
        var command = RedisCommand(arguments)
        return send(encoded: command.finish(), completion)
    }

    /// Queues `SCRIPT LOAD` ahead of `script`'s first call on this connection, so that call is
    /// an `EVALSHA` that finds it and runs in the order it was sent. (Falling back to `EVAL` on
    /// `NOSCRIPT` runs the call behind commands sent after it: a typing signal's peer check once
    /// ran after the message that made the two peers.) The reply is dropped: a load that failed
    /// shows as `NOSCRIPT`, which still falls back to `EVAL`. False when not connected.
    func prepare(_ script: RedisScript) -> Bool {
        guard !loadedScripts.contains(script.sha1) else { return true }
        var load = RedisCommand([Array("SCRIPT".utf8), Array("LOAD".utf8), Array(script.source.utf8)])
        guard send(encoded: load.finish(), { _ in }) else { return false }
        loadedScripts.insert(script.sha1)
        return true
    }

    /// Queues one command already in RESP (`RedisCommand.finish`).
    func send(encoded command: ArraySlice<UInt8>, _ completion: @escaping Completion) -> Bool {
        guard phase == .connected, let connection, connection.write(command) else { return false }
        inFlight.append(InFlight(deadline: MonotonicClock.now() &+ timeoutNanos, completion: completion))
        if timer == nil { armTimeout() }
        return true
    }

    /// SUBSCRIBE / UNSUBSCRIBE (or their sharded S- forms). Their confirmations are pushes like
    /// the messages, so there is no FIFO entry and no deadline; each command is remembered until
    /// its confirmations or its error reply (`onSubscriptionRefused`) have come.
    func subscription(_ command: String, channels: [[UInt8]]) -> Bool {
        guard phase == .connected, let connection, !channels.isEmpty else { return false }
        var encoded = RedisCommand([Array(command.utf8)] + channels)
        subscribed = true
        guard connection.write(Array(encoded.finish())) else { return false }
        pendingSubscriptions.append(PendingSubscription(command: command, channels: channels, repliesAhead: inFlight.count))
        return true
    }

    /// Tears the connection down; in-flight commands fail with `reason`, and `onClosed` hears
    /// `message` at the end of the iteration.
    func close(failing reason: RedisError = .disconnected, because message: String) {
        guard phase != .closed else { return }
        phase = .closed
        failure = reason
        if let timer { loop.cancel(timer) }
        timer = nil
        if let connection {
            connection.delegate = nil
            connection.close(reason: .closedByServer)
        }
        connection = nil
        loop.deferToEndOfIteration { [self] in
            while let entry = inFlight.popFirst() {
                entry.completion(.failure(failure))
            }
            let report = onClosed
            onClosed = nil
            onConnected = nil
            onMessage = nil
            onSubscriptionRefused = nil
            onUnsubscribed = nil
            pendingSubscriptions.removeAll()
            report?(message)
        }
    }

    // MARK: ConnectionDelegate

    func connection(_ connection: Connection, didRead bytes: UnsafeRawBufferPointer) {
        guard phase == .connected, let base = bytes.baseAddress else { return }
        guard redisReaderFeed(reader, base.assumingMemoryBound(to: CChar.self), bytes.count) == REDIS_OK else {
            return close(because: "out of memory reading a reply")
        }
        while phase == .connected {
            var object: UnsafeMutableRawPointer?
            guard redisReaderGetReply(reader, &object) == REDIS_OK else {
                let reason = withUnsafeBytes(of: reader.pointee.errstr) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                return close(because: "protocol error: \(reason)")
            }
            guard let object else { break }
            // The reader hands over each reply: ours to free once its completion has run.
            defer { freeReplyObject(object) }
            handle(RedisReply(object.assumingMemoryBound(to: redisReply.self)))
        }
        if phase == .connected, Int(clamping: reader.pointee.len - reader.pointee.pos) > bufferLimit {
            close(because: "a reply exceeds the \(bufferLimit)-byte input limit")
        }
    }

    func connectionDidClose(_ connection: Connection, reason: CloseReason) {
        switch reason {
        case .peerClosed: close(because: "closed by Redis")
        case .slowConsumer: close(because: "commands past the \(bufferLimit)-byte output limit")
        case .closedByServer, .proxyHeader: close(because: "closed")  // no PROXY header on a client connection
        case .error(let message): close(because: message)
        }
    }

    // MARK: Replies

    private func handle(_ reply: RedisReply) {
        if subscribed {
            if let kind = Self.pushKind(reply) { return push(kind, reply) }
            if reply.isError, let refused = pendingSubscriptions.first, refused.repliesAhead == 0 {
                // One error reply instead of the command's confirmations.
                pendingSubscriptions.removeFirst()
                return subscriptionRefused(refused, reply.errorMessage ?? "")
            }
            // A reply to a command sent before the subscriptions still waiting.
            for index in pendingSubscriptions.indices where pendingSubscriptions[index].repliesAhead > 0 {
                pendingSubscriptions[index].repliesAhead -= 1
            }
        }
        guard let entry = inFlight.popFirst() else {
            return close(because: "a reply nothing was waiting for")
        }
        entry.completion(.success(reply))
    }

    private func push(_ kind: String, _ reply: RedisReply) {
        guard case .array(let items?) = reply.value, items.count == 3, case .bulk(let channel) = items[1] else { return }
        if kind == "message" || kind == "smessage" {
            if let channel, case .bulk(let payload?) = items[2] { onMessage?(channel, payload) }
            return
        }
        // A confirmation of the oldest subscription command (one per channel, in its order)…
        if let head = pendingSubscriptions.first, head.repliesAhead == 0, head.confirmation == kind,
           head.confirmed < head.channels.count, head.channels[head.confirmed] == channel {
            pendingSubscriptions[0].confirmed += 1
            if pendingSubscriptions[0].confirmed >= head.channels.count { pendingSubscriptions.removeFirst() }
            return
        }
        // …or Redis dropped a subscription by itself.
        if kind == "unsubscribe" || kind == "sunsubscribe", let channel { onUnsubscribed?(channel) }
    }

    private func subscriptionRefused(_ refused: PendingSubscription, _ message: String) {
        guard let handler = onSubscriptionRefused else {
            return close(because: "\(refused.command) refused: \(message)")
        }
        handler(refused.command, refused.channels, message)
    }

    /// The kind of a pub/sub push (`message`, `smessage`, `subscribe`, …), nil for a reply.
    private static func pushKind(_ reply: RedisReply) -> String? {
        guard reply.count >= 3, let kind = reply[0]?.string, pushKinds.contains(kind) else { return nil }
        return kind
    }

    private static let pushKinds: Set<String> = [
        "message", "smessage", "pmessage", "subscribe", "unsubscribe", "ssubscribe", "sunsubscribe",
        "psubscribe", "punsubscribe",
    ]

    // MARK: Private

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
}

/// A (S)SUBSCRIBE or (S)UNSUBSCRIBE sent: Redis answers it with one confirmation push per
/// channel, or — refused as a whole (`MOVED`, `CROSSSLOT`, `NOPERM`) — with one error reply, in
/// the order commands were sent.
private struct PendingSubscription {
    let command: String
    let channels: [[UInt8]]
    /// Commands sent before it and not yet answered: their replies come first.
    var repliesAhead: Int
    /// The push confirming each channel: the command's name in lower case.
    let confirmation: String
    var confirmed = 0

    init(command: String, channels: [[UInt8]], repliesAhead: Int) {
        self.command = command
        self.channels = channels
        self.repliesAhead = repliesAhead
        confirmation = command.lowercased()
    }
}

/// Why `RedisConnection.open` could not even start.
struct RedisStartFailure: Error {
    let reason: String
}
