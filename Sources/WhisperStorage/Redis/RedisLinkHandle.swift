import WhisperRuntime

/// What a handle starts and closes on its loop: one `RedisLink`, or a `RedisCluster` of them.
protocol RedisLinkOwner: AnyObject {
    func start()
    func close()
}

extension RedisLink: RedisLinkOwner {}

/// The part of a `RedisLink` (or `RedisCluster`) other threads may use: start, close, and the state /ready and
/// metrics read. `RedisClient` and `RedisSubscriber` each own one; dropping the owner without
/// `close()` closes the link, because the connection stays alive while its socket is
/// registered on the loop and would otherwise stay connected for ever.
final class RedisLinkHandle: Sendable {
    private let link: LoopBound<any RedisLinkOwner>
    private let status: RedisConnectionStatus

    init(_ link: any RedisLinkOwner, loop: EventLoop, status: RedisConnectionStatus) {
        self.link = LoopBound(link, loop: loop)
        self.status = status
    }

    /// A new link (for its owner's loop-thread use) and the handle the owner keeps for the rest.
    static func open(name: String, configuration: RedisConfiguration, loop: EventLoop, selectsDatabase: Bool,
                     log: @escaping StorageLog) -> (RedisLink, RedisLinkHandle) {
        let status = RedisConnectionStatus()
        let link = RedisLink(name: name, configuration: configuration, loop: loop, selectsDatabase: selectsDatabase,
                             status: status, log: log)
        return (link, RedisLinkHandle(link, loop: loop, status: status))
    }

    deinit { link.deliver { $0.close() } }

    func start() { link.deliver { $0.start() } }
    func close() { link.deliver { $0.close() } }
    var isConnected: Bool { status.connected.load(ordering: .acquiring) }
    var reconnectCount: Int { status.reconnects.load(ordering: .relaxed) }
}
