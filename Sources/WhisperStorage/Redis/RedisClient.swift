import WhisperOps
import WhisperRuntime

/// Redis access for one event loop (the server creates one client per loop).
///
/// Threading design: the connection is a socket on the loop's own epoll (`RedisConnection`:
/// the runtime's `Connector` and `Connection`, plain TCP or TLS for `rediss://`, with hiredis
/// only parsing replies). Redis is on the message hot path (sessions, pending queues, rate
/// limits, presence, cross-node routing), so a command costs no thread hop and no lock: it is
/// appended to the connection's output, every command of a loop iteration leaves in one
/// `write` before the loop sleeps (pipelining for free), and replies run their completions on
/// the same loop thread, in order. Only a host name's lookup leaves the loop (a thread of its
/// own, at each connect).
///
/// Failure behaviour: no command waits for a connection. While disconnected, `send` fails
/// fast with `.disconnected`; a dropped connection fails everything in flight, then
/// reconnects with backoff (50 ms doubling to 2 s, jittered). A reply slower than the
/// command timeout (default 5 s, loop timers) is treated as a
/// broken connection: in-flight commands fail with `.timeout` and it reconnects. A script
/// that is safe to run twice (`evalScript(…, retryOnce: true)`) and lost its link instead
/// waits for the next one, at most `retryWindowNanos` (1 s), and runs once more there.
///
/// Redis Cluster (`configuration.cluster`): the same API over `RedisCluster` — commands routed by
/// the slot of their key to one connection per primary, `MOVED`/`ASK` followed, retry-safe
/// commands retried across a failover for `clusterRetryWindowMillis` (docs/operations.md
/// "Redis Cluster").
///
/// Thread rules: `start`, `close`, `isConnected`, `reconnectCount` and the `async` methods
/// may be used from any thread; everything taking a completion must be called on `loop`,
/// and its completion runs on `loop`, always after `send` has returned.
public final class RedisClient: @unchecked Sendable {
    public let loop: EventLoop
    public let configuration: RedisConfiguration
    /// The one link to a standalone Redis (nil in cluster mode): the direct path.
    private let link: RedisLink?
    /// In cluster mode (`configuration.cluster`), the slot map and a link per primary; a
    /// `RedisSubscriber` of the same loop may share its map (`RedisSubscriber.init(…mapFrom:…)`).
    let cluster: RedisCluster?
    private let handle: RedisLinkHandle
    /// How long a retry-safe command that lost its link waits for the next one.
    public static let retryWindowNanos: UInt64 = 1_000_000_000
    /// Retry-safe commands waiting for a link (loop-confined), oldest first.
    private var awaitingLink: [(deadline: UInt64, resend: () -> Void, fail: () -> Void)] = []
    private var awaitingTimerArmed = false

    public convenience init(url: String, loop: EventLoop, log: @escaping StorageLog = { _, _ in }) throws(ConfigError) {
        self.init(configuration: try RedisConfiguration(url: url), loop: loop, log: log)
    }

    public init(configuration: RedisConfiguration, loop: EventLoop, log: @escaping StorageLog = { _, _ in }) {
        self.loop = loop
        self.configuration = configuration
        if configuration.cluster {
            let status = RedisConnectionStatus()
            let cluster = RedisCluster(configuration: configuration, loop: loop, status: status, log: log)
            (link, self.cluster, handle) = (nil, cluster, RedisLinkHandle(cluster, loop: loop, status: status))
        } else {
            let (link, handle) = RedisLinkHandle.open(name: "redis", configuration: configuration, loop: loop,
                                                      selectsDatabase: true, log: log)
            (self.link, cluster, self.handle) = (link, nil, handle)
            link.onReady = { [weak self] _ in self?.resendAwaiting() }
        }
    }

    /// Talking to a Redis Cluster: keys of one script must share a slot, and pub/sub that should
    /// stay on one shard goes through `SPUBLISH` (routed by its channel) and `RedisSubscriber`'s
    /// sharded subscriptions.
    public var isCluster: Bool { cluster != nil }

    /// Begins connecting (from any thread). Commands fail with `.disconnected` until ready.
    public func start() { handle.start() }

    /// Closes the connection (from any thread); in-flight commands fail with `.closed`.
    public func close() { handle.close() }

    /// Connected and past AUTH/SELECT (cluster: a map is known and every primary's link is
    /// ready). For /ready; readable from any thread.
    public var isConnected: Bool { handle.isConnected }

    /// Connections re-established after a loss, for a metrics counter.
    public var reconnectCount: Int { handle.reconnectCount }

    // MARK: Commands (loop thread)

    /// Sends one command with binary-safe arguments. Many may be in flight; replies come
    /// in send order. A server error reply is `.success(.error(message))`.
    public func send(_ arguments: [[UInt8]], _ completion: @escaping (Result<RedisValue, RedisError>) -> Void) {
        assert(loop.inEventLoop, "RedisClient.send must run on its loop")
        if let problem = Self.validate(arguments) {
            fail(completion, problem)
            return
        }
        var command = RedisCommand(arguments)
        send(encoded: command.finish()) { completion($0.map(\.value)) }
    }

    /// A command written in place (`RedisCommand`), for the per-message steps: no array per
    /// argument. Checked like `send(_:_:)`; `reading` reads the reply in place (`RedisReply`).
    package func send(_ command: consuming RedisCommand, reading completion: @escaping (Result<RedisReply, RedisError>) -> Void) {
        assert(loop.inEventLoop, "RedisClient.send must run on its loop")
        let encoded = command.finish()
        var scanner = RESPScanner(encoded)
        guard let name = scanner.next() else { return fail(completion, .invalidCommand("no arguments")) }
        if let problem = Self.validate(name: name, second: scanner.next()) { return fail(completion, problem) }
        send(encoded: encoded, completion)
    }

    public func send(_ arguments: [String], _ completion: @escaping (Result<RedisValue, RedisError>) -> Void) {
        send(arguments.map { Array($0.utf8) }, completion)
    }

    /// Publishes `payload` on `channel` the way this project's subscribers listen
    /// (`RedisSubscriber`): `PUBLISH` on a standalone Redis, `SPUBLISH` on a cluster, where every
    /// channel — per-node and broadcast alike — is a sharded channel on the primary of its slot.
    /// Answers the number of subscribers that received it (on a cluster: on that shard, which
    /// is where they all subscribe). Never from inside a script on a cluster: its channel is in
    /// a slot of its own.
    public func publish(_ channel: [UInt8], _ payload: [UInt8], _ completion: @escaping (Result<Int64, RedisError>) -> Void) {
        send([Array((isCluster ? "SPUBLISH" : "PUBLISH").utf8), channel, payload]) { result in
            completion(result.flatMap { value in
                if case .integer(let receivers) = value { return .success(receivers) }
                return .failure(.invalidCommand("PUBLISH answered \(value)"))
            })
        }
    }

    /// A command already in RESP (checked by the caller). In cluster mode it is routed by its
    /// slot, and `retryOnce` lets the cluster retry it within its window.
    /// A `trailer` goes right behind it on the same connection; it is only sent when the
    /// command was. `script`: the one an `EVALSHA` runs (`RedisConnection.prepare`).
    private func send(encoded command: ArraySlice<UInt8>, script: RedisScript? = nil, retryOnce: Bool = false,
                      trailer: RedisTrailer? = nil, _ completion: @escaping (Result<RedisReply, RedisError>) -> Void) {
        assert(loop.inEventLoop, "RedisClient.send must run on its loop")
        if let cluster { return cluster.send(encoded: command, retrySafe: retryOnce, trailer: trailer, completion) }
        guard let connection = link?.ready, script.map(connection.prepare) ?? true,
              connection.send(encoded: command, completion) else {
            fail(completion, .disconnected)
            return
        }
        // A write refused here closes the connection, so `command` fails too.
        if let trailer { _ = connection.send(encoded: trailer.command, trailer.completion) }
    }

    /// Runs `script` with EVALSHA, loaded ahead on each connection (`RedisConnection.prepare`);
    /// on NOSCRIPT (an operator's `SCRIPT FLUSH`) falls back to EVAL, which caches it again.
    public func evalScript(_ script: RedisScript, keys: [[UInt8]], arguments: [[UInt8]], retryOnce: Bool = false,
                           _ completion: @escaping (Result<RedisValue, RedisError>) -> Void) {
        evalScript(RedisScriptCall(script, keys: keys, arguments: arguments), retryOnce: retryOnce, completion)
    }

    /// A prepared call, its reply copied into a `RedisValue`.
    public func evalScript(_ call: RedisScriptCall, retryOnce: Bool = false,
                           _ completion: @escaping (Result<RedisValue, RedisError>) -> Void) {
        evalScript(call, retryOnce: retryOnce, reading: { completion($0.map(\.value)) })
    }

    /// Runs a prepared call with EVALSHA (EVAL after `NOSCRIPT`); `completion` reads the reply in
    /// place (`RedisReply`, valid only during the call), so the message path builds no tree.
    /// `retryOnce` is for a script that is safe to run twice — idempotent by construction, like
    /// the message accept script with its `(from, messageId)` key, receipts and fetches: when
    /// the link is lost before the reply (or is down when it is sent), the script waits for the
    /// next link for at most `retryWindowNanos` and runs once more there; only then does the
    /// caller see `.disconnected`. One completion closure per call on the common path.
    public func evalScript(_ call: RedisScriptCall, retryOnce: Bool = false,
                           reading completion: @escaping (Result<RedisReply, RedisError>) -> Void) {
        run(call, retryOnce: retryOnce, waiting: nil, completion)
    }

    /// Runs a prepared call like `evalScript(_:retryOnce:reading:)`, with `WAIT` pipelined right
    /// behind it on the same connection (cluster: the primary the script ran on; every EVAL,
    /// redirect or retry takes its own `WAIT` along). `reading` reads the script's reply when it
    /// comes; `completion` gets what it made and the number of replicas `WAIT` reported — nil
    /// when it reported none (the link was lost, an error reply) or the script itself failed.
    public func evalScript<Parsed>(_ call: RedisScriptCall, retryOnce: Bool = false, then wait: RedisReplicaWait,
                                   reading: @escaping (Result<RedisReply, RedisError>) -> Parsed,
                                   completion: @escaping (Parsed, _ replicas: Int?) -> Void) {
        let waiting = ReplicaWaitGate(wait)
        run(call, retryOnce: retryOnce, waiting: waiting) { result in
            let parsed = reading(result)
            guard case .success = result else { return completion(parsed, nil) }
            waiting.expect { replicas in completion(parsed, replicas) }
        }
    }

    /// EVALSHA, then EVAL after `NOSCRIPT`; `waiting` sends its `WAIT` behind each. A cluster
    /// does both itself, across redirects and retries.
    private func run(_ call: RedisScriptCall, retryOnce: Bool, waiting: ReplicaWaitGate?,
                     _ completion: @escaping (Result<RedisReply, RedisError>) -> Void) {
        if let cluster { return cluster.run(call, retrySafe: retryOnce, trailer: waiting?.trailer(), completion) }
        send(encoded: call.evalsha, script: call.script, retryOnce: retryOnce, trailer: waiting?.trailer()) { [weak self] result in
            guard case .success(let reply) = result, reply.isError(withPrefix: "NOSCRIPT") else {
                guard let self else { return completion(result) }
                return self.settle(call, retryOnce: retryOnce, waiting: waiting, result, completion)
            }
            guard let self else { return completion(.failure(.closed)) }
            self.send(encoded: call.eval, retryOnce: retryOnce, trailer: waiting?.trailer()) { [weak self] result in
                guard let self else { return completion(result) }
                self.settle(call, retryOnce: retryOnce, waiting: waiting, result, completion)
            }
        }
    }

    /// Hands the reply on, or runs a `retryOnce` script again on the next link (once: the rerun
    /// does not retry). Standalone only: a cluster retries within its own window.
    private func settle(_ call: RedisScriptCall, retryOnce: Bool, waiting: ReplicaWaitGate?,
                        _ result: Result<RedisReply, RedisError>,
                        _ completion: @escaping (Result<RedisReply, RedisError>) -> Void) {
        guard retryOnce, case .failure(let error) = result, error == .disconnected else {
            return completion(result)
        }
        awaitLink(resend: { self.run(call, retryOnce: false, waiting: waiting, completion) },
                  fail: { completion(.failure(error)) })
    }

    private func awaitLink(resend: @escaping () -> Void, fail: @escaping () -> Void) {
        // In-flight commands fail inside the connection's teardown: decide after it.
        loop.deferToEndOfIteration { [self] in
            if link?.ready != nil { return resend() }
            awaitingLink.append((MonotonicClock.now() + Self.retryWindowNanos, resend, fail))
            armAwaitingTimer()
        }
    }

    private func resendAwaiting() {
        let waiting = awaitingLink
        awaitingLink.removeAll()
        for entry in waiting { entry.resend() }
    }

    /// Fails the waiting commands whose window has passed; runs while any wait.
    private func armAwaitingTimer() {
        guard !awaitingTimerArmed, let first = awaitingLink.first else { return }
        awaitingTimerArmed = true
        let now = MonotonicClock.now()
        _ = loop.schedule(afterNanoseconds: first.deadline > now ? first.deadline - now : 0) { [weak self] in
            guard let self else { return }
            self.awaitingTimerArmed = false
            let now = MonotonicClock.now()
            let expired = self.awaitingLink.prefix { $0.deadline <= now }
            self.awaitingLink.removeFirst(expired.count)
            for entry in expired { entry.fail() }
            self.armAwaitingTimer()
        }
    }

    // MARK: async (any thread; tools and tests)

    public func send(_ arguments: [[UInt8]]) async throws(RedisError) -> RedisValue {
        try await onLoop { client, done in client.send(arguments, done) }
    }

    public func send(_ arguments: [String]) async throws(RedisError) -> RedisValue {
        try await send(arguments.map { Array($0.utf8) })
    }

    public func evalScript(_ script: RedisScript, keys: [[UInt8]], arguments: [[UInt8]]) async throws(RedisError) -> RedisValue {
        try await onLoop { client, done in client.evalScript(script, keys: keys, arguments: arguments, done) }
    }

    // MARK: Private

    private func onLoop(
        _ body: @escaping @Sendable (RedisClient, @escaping (Result<RedisValue, RedisError>) -> Void) -> Void
    ) async throws(RedisError) -> RedisValue {
        let result: Result<RedisValue, RedisError> = await withCheckedContinuation { continuation in
            loop.execute { body(self) { continuation.resume(returning: $0) } }
        }
        return try result.get()
    }

    /// Failures are delivered later in the iteration, never inside `send`, so callers can
    /// update their own state after `send` returns without a re-entrant completion.
    private func fail<Reply>(_ completion: @escaping (Result<Reply, RedisError>) -> Void, _ error: RedisError) {
        loop.deferToEndOfIteration { completion(.failure(error)) }
    }

    /// Commands that would break the one-reply-per-command order the connection relies on:
    /// pub/sub belongs to `RedisSubscriber`.
    static func validate(_ arguments: [[UInt8]]) -> RedisError? {
        guard let name = arguments.first else { return .invalidCommand("no arguments") }
        return validate(name: name[...], second: arguments.count > 1 ? arguments[1][...] : nil)
    }

    static func validate(name: ArraySlice<UInt8>, second: ArraySlice<UInt8>?) -> RedisError? {
        guard name.count >= 6, name.count <= 12 else { return nil }
        let upper = String(decoding: name, as: UTF8.self).uppercased()
        switch upper {
        case "SUBSCRIBE", "PSUBSCRIBE", "SSUBSCRIBE", "UNSUBSCRIBE", "PUNSUBSCRIBE", "SUNSUBSCRIBE", "MONITOR":
            return .invalidCommand("\(upper) needs RedisSubscriber")
        case "CLIENT":
            if let second, String(decoding: second, as: UTF8.self).uppercased() == "REPLY" {
                return .invalidCommand("CLIENT REPLY would desynchronise replies")
            }
            return nil
        default:
            return nil
        }
    }
}
