import WhisperRuntime

/// `RedisSubscriber` in cluster mode: each channel is `SSUBSCRIBE`d (sharded pub/sub, Redis 7)
/// on the primary that owns its slot, over one subscriber link per such primary. The slot map
/// comes from a `RedisCluster` of its own (it also sends nothing else). When the map changes —
/// a failover, a resharded slot (seen at the next periodic refresh), a link lost — every channel
/// whose owner changed is unsubscribed from the old node and subscribed on the new one; a link
/// that comes back subscribes its channels again. Loop-confined.
///
/// A resharded slot also makes Redis push `sunsubscribe` for its channels; the connection drops
/// those confirmations, so the move is noticed at the next map refresh (`RedisCluster`, at most
/// 10 s). A stale map can send an `SSUBSCRIBE` to a node that answers `MOVED`, which the
/// connection treats as a reply nothing waited for: that link reconnects (with backoff) until the
/// map is current.
final class RedisShardedSubscriptions: RedisLinkOwner {
    let loop: EventLoop
    let status: RedisConnectionStatus
    private let configuration: RedisConfiguration
    private let log: StorageLog
    private let cluster: RedisCluster
    private var links: [RedisNodeAddress: RedisLink] = [:]
    /// The node each channel is subscribed on (or will be, once its link is ready).
    private var placed: [[UInt8]: RedisNodeAddress] = [:]
    private var closed = false

    /// The channels to keep subscribed (`RedisSubscriber`'s handlers).
    var channels: () -> [[UInt8]] = { [] }
    var onMessage: (([UInt8], [UInt8]) -> Void)?
    /// After a link has subscribed its channels again.
    var onReady: (() -> Void)?

    init(configuration: RedisConfiguration, loop: EventLoop, status: RedisConnectionStatus, log: @escaping StorageLog) {
        self.configuration = configuration
        self.loop = loop
        self.status = status
        self.log = log
        cluster = RedisCluster(configuration: configuration, loop: loop, status: RedisConnectionStatus(), log: log)
        cluster.onTopology = { [weak self] in self?.placeAll() }
    }

    func start() { cluster.start() }

    func close() {
        closed = true
        cluster.close()
        for link in links.values { link.close() }
        links.removeAll()
        status.connected.store(false, ordering: .releasing)
    }

    func subscribe(_ channel: [UInt8]) { place(channel) }

    func unsubscribe(_ channel: [UInt8]) {
        guard let node = placed.removeValue(forKey: channel), let connection = links[node]?.ready else { return }
        Self.leave(connection, [channel])
    }

    // MARK: Private

    private func placeAll() {
        guard !closed, let map = cluster.map else { return }
        for channel in channels() { place(channel) }
        let owners = Set(map.primaries)
        for (node, link) in links where !owners.contains(node) {
            links[node] = nil
            loop.deferToEndOfIteration { link.close() }
        }
        updateStatus()
    }

    private func place(_ channel: [UInt8]) {
        guard !closed, let owner = cluster.map?.primary(forSlot: RedisSlot.of(channel)), placed[channel] != owner else { return }
        if let old = placed[channel], let connection = links[old]?.ready { Self.leave(connection, [channel]) }
        placed[channel] = owner
        if let connection = link(for: owner).ready, !Self.join(connection, [channel]) {
            connection.close(because: "SSUBSCRIBE could not be sent")
        }
    }

    private func link(for node: RedisNodeAddress) -> RedisLink {
        if let link = links[node] { return link }
        var nodeConfiguration = configuration
        nodeConfiguration.host = node.host
        nodeConfiguration.port = node.port
        let link = RedisLink(name: "redis-subscriber", configuration: nodeConfiguration, loop: loop, selectsDatabase: false,
                             status: RedisConnectionStatus(), log: log)
        link.onReady = { [weak self] connection in self?.linkReady(node, connection) }
        link.onMessage = { [weak self] channel, payload in self?.onMessage?(channel, payload) }
        links[node] = link
        link.start()
        return link
    }

    private func linkReady(_ node: RedisNodeAddress, _ connection: RedisConnection) {
        let mine = placed.filter { $0.value == node }.map(\.key)
        if !mine.isEmpty, !Self.join(connection, mine) {
            connection.close(because: "SSUBSCRIBE could not be sent")
            return
        }
        updateStatus()
        onReady?()
    }

    /// Ready when the map is known and every link that carries a channel is up.
    private func updateStatus() {
        let connected = cluster.map != nil && Set(placed.values).allSatisfy { links[$0]?.ready != nil }
        status.connected.store(connected, ordering: .releasing)
    }

    private static func join(_ connection: RedisConnection, _ channels: [[UInt8]]) -> Bool {
        connection.subscription("SSUBSCRIBE", channels: channels)
    }

    private static func leave(_ connection: RedisConnection, _ channels: [[UInt8]]) {
        _ = connection.subscription("SUNSUBSCRIBE", channels: channels)
    }
}
