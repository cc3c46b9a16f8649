import WhisperOps
import WhisperRuntime

/// Pub/sub on a dedicated connection (a subscribed connection can run no other command); in
/// cluster mode, sharded pub/sub on the primary owning each channel (`RedisShardedSubscriptions`).
/// Handlers run on `loop`. After a reconnect every channel is subscribed again; messages
/// published while disconnected are lost, as Redis pub/sub is fire-and-forget — durable
/// delivery goes through the pending queues, pub/sub only wakes nodes up.
///
/// `start`, `close`, `isConnected`, `reconnectCount` are for any thread; `subscribe` and
/// `unsubscribe` for the loop thread.
public final class RedisSubscriber: @unchecked Sendable {
    public let loop: EventLoop
    public let configuration: RedisConfiguration
    /// The one link to a standalone Redis (classic SUBSCRIBE); nil in cluster mode.
    private let link: RedisLink?
    /// Cluster mode: sharded subscriptions (SSUBSCRIBE) on the primary owning each channel's slot.
    private let sharded: RedisShardedSubscriptions?
    private let handle: RedisLinkHandle
    private var handlers: [[UInt8]: ([UInt8]) -> Void] = [:]
    /// Runs on `loop` each time the connection is ready and every channel has been
    /// subscribed again. Messages published while disconnected are lost, so this is where a
    /// user re-checks whatever state those messages would have changed. Set it on `loop`.
    public var onReady: (() -> Void)?

    public convenience init(url: String, loop: EventLoop, log: @escaping StorageLog = { _, _ in }) throws(ConfigError) {
        self.init(configuration: try RedisConfiguration(url: url), loop: loop, log: log)
    }

    /// `mapFrom`: in cluster mode, a cluster-mode `RedisClient` of the same `loop` whose slot map
    /// (kept current by its commands' redirects and its refreshes) the subscriptions use, instead
    /// of one of their own with a connection per primary. The client starts and closes it.
    /// Ignored for a standalone Redis or a client of another loop.
    public init(configuration: RedisConfiguration, loop: EventLoop, mapFrom client: RedisClient? = nil,
                log: @escaping StorageLog = { _, _ in }) {
        self.loop = loop
        self.configuration = configuration
        if configuration.cluster {
            let status = RedisConnectionStatus()
            let shared = client.flatMap { $0.loop === loop ? $0.cluster : nil }
            let sharded = RedisShardedSubscriptions(configuration: configuration, loop: loop, status: status,
                                                    sharing: shared, log: log)
            (link, self.sharded, handle) = (nil, sharded, RedisLinkHandle(sharded, loop: loop, status: status))
            sharded.channels = { [weak self] in self.map { Array($0.handlers.keys) } ?? [] }
            sharded.onReady = { [weak self] in self?.onReady?() }
            sharded.onMessage = { [weak self] channel, payload in self?.handlers[channel]?(payload) }
        } else {
            // Channels are global across databases: no SELECT.
            let (link, handle) = RedisLinkHandle.open(name: "redis-subscriber", configuration: configuration, loop: loop,
                                                      selectsDatabase: false, log: log)
            (self.link, sharded, self.handle) = (link, nil, handle)
            link.onReady = { [weak self] connection in self?.resubscribe(connection) }
            link.onMessage = { [weak self] channel, payload in self?.handlers[channel]?(payload) }
        }
    }

    /// Sharded pub/sub (cluster mode): publish with `SPUBLISH` (`RedisClient` routes it by channel).
    public var isSharded: Bool { sharded != nil }

    /// Begins connecting (from any thread).
    public func start() { handle.start() }

    public func close() { handle.close() }

    public var isConnected: Bool { handle.isConnected }
    public var reconnectCount: Int { handle.reconnectCount }

    /// Sets the handler for `channel` (replacing any earlier one) and subscribes now if
    /// connected, else on the next connect.
    public func subscribe(_ channel: [UInt8], handler: @escaping (_ payload: [UInt8]) -> Void) {
        assert(loop.inEventLoop, "RedisSubscriber.subscribe must run on its loop")
        let isNew = handlers[channel] == nil
        handlers[channel] = handler
        if isNew, let sharded { return sharded.subscribe(channel) }
        if isNew, let connection = link?.ready {
            _ = connection.subscription("SUBSCRIBE", channels: [channel])
        }
    }

    public func subscribe(_ channel: String, handler: @escaping (_ payload: [UInt8]) -> Void) {
        subscribe(Array(channel.utf8), handler: handler)
    }

    public func unsubscribe(_ channel: [UInt8]) {
        assert(loop.inEventLoop, "RedisSubscriber.unsubscribe must run on its loop")
        guard handlers.removeValue(forKey: channel) != nil else { return }
        if let sharded { return sharded.unsubscribe(channel) }
        if let connection = link?.ready {
            _ = connection.subscription("UNSUBSCRIBE", channels: [channel])
        }
    }

    public func unsubscribe(_ channel: String) {
        unsubscribe(Array(channel.utf8))
    }

    private func resubscribe(_ connection: RedisConnection) {
        if !handlers.isEmpty, !connection.subscription("SUBSCRIBE", channels: Array(handlers.keys)) {
            connection.close(because: "SUBSCRIBE could not be sent")
            return
        }
        onReady?()
    }
}
