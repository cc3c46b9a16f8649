import WhisperOps
import WhisperRuntime

/// Pub/sub on a dedicated connection (a subscribed connection can run no other command).
/// Handlers run on `loop`. After a reconnect every channel is subscribed again; messages
/// published while disconnected are lost, as Redis pub/sub is fire-and-forget — durable
/// delivery goes through the pending queues, pub/sub only wakes nodes up.
///
/// `start`, `close`, `isConnected`, `reconnectCount` are for any thread; `subscribe` and
/// `unsubscribe` for the loop thread.
public final class RedisSubscriber: @unchecked Sendable {
    public let loop: EventLoop
    public let configuration: RedisConfiguration
    private let link: RedisLink
    private let handle: RedisLinkHandle
    private var handlers: [[UInt8]: ([UInt8]) -> Void] = [:]
    /// Runs on `loop` each time the connection is ready and every channel has been
    /// subscribed again. Messages published while disconnected are lost, so this is where a
    /// user re-checks whatever state those messages would have changed. Set it on `loop`.
    public var onReady: (() -> Void)?

    public convenience init(url: String, loop: EventLoop, log: @escaping StorageLog = { _, _ in }) throws(ConfigError) {
        self.init(configuration: try RedisConfiguration(url: url), loop: loop, log: log)
    }

    public init(configuration: RedisConfiguration, loop: EventLoop, log: @escaping StorageLog = { _, _ in }) {
        self.loop = loop
        self.configuration = configuration
        // Channels are global across databases: no SELECT.
        (link, handle) = RedisLinkHandle.open(name: "redis-subscriber", configuration: configuration, loop: loop,
                                              selectsDatabase: false, log: log)
        link.onReady = { [weak self] connection in self?.resubscribe(connection) }
        link.onMessage = { [weak self] channel, payload in self?.handlers[channel]?(payload) }
    }

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
        if isNew, let connection = link.ready {
            _ = connection.subscription("SUBSCRIBE", channels: [channel])
        }
    }

    public func subscribe(_ channel: String, handler: @escaping (_ payload: [UInt8]) -> Void) {
        subscribe(Array(channel.utf8), handler: handler)
    }

    public func unsubscribe(_ channel: [UInt8]) {
        assert(loop.inEventLoop, "RedisSubscriber.unsubscribe must run on its loop")
        guard handlers.removeValue(forKey: channel) != nil else { return }
        if let connection = link.ready {
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
