import WhisperRuntime

/// `RedisSubscriber` in cluster mode: each channel is `SSUBSCRIBE`d (sharded pub/sub, Redis 7)
/// on the primary that owns its slot, over one subscriber link per such primary. The slot map
/// comes from a `RedisCluster` of its own (which sends nothing else), or from the one of a
/// `RedisClient` on the same loop, which it then neither starts nor closes. Loop-confined.
///
/// The subscriptions follow the cluster three ways:
/// - **A new map** (a failover, a refresh after a `MOVED` or a lost link, the periodic one): every
///   channel whose owner changed is unsubscribed from the old node and subscribed on the new one.
/// - **`sunsubscribe` pushed by a node** (a slot of a subscribed channel moved away): the channel
///   is subscribed again at once on the owner the map names; a stale map sends it back to the same
///   node, which answers `MOVED` (below). A map refresh is asked for too.
/// - **`SSUBSCRIBE` answered `MOVED slot node`** (a stale map): the slot moves in the map, a
///   refresh is asked for (`RedisCluster.moved`), and the channel is subscribed on the named node.
///   At most `maximumRedirects` such hops per channel between two maps, so two nodes that disagree
///   during a failover cannot bounce it for ever. Any other refusal leaves the channel unplaced
///   until the next map (at most a second: `RedisCluster` calls back every watch tick).
///
/// The connection stays up through all of it, and so do the other channels on it. A link that
/// comes back subscribes its channels again, one `SSUBSCRIBE` per slot (Redis refuses one naming
/// channels of several slots with `CROSSSLOT`).
final class RedisShardedSubscriptions: RedisLinkOwner {
    static let maximumRedirects = 5

    let loop: EventLoop
    let status: RedisConnectionStatus
    private let configuration: RedisConfiguration
    private let log: StorageLog
    private let cluster: RedisCluster
    /// False for a `RedisClient`'s cluster: its client starts and closes it.
    private let ownsCluster: Bool
    private var started = false
    private var links: [RedisNodeAddress: RedisLink] = [:]
    private var linkStatuses: [RedisNodeAddress: RedisConnectionStatus] = [:]
    /// Reconnects of links already closed, so the counter never goes back.
    private var retiredReconnects = 0
    /// The node each channel is subscribed on (or will be, once its link is ready).
    private var placed: [[UInt8]: RedisNodeAddress] = [:]
    /// `MOVED` answers followed per channel since the last map.
    private var redirects: [[UInt8]: Int] = [:]
    private var closed = false

    /// The channels to keep subscribed (`RedisSubscriber`'s handlers).
    var channels: () -> [[UInt8]] = { [] }
    var onMessage: (([UInt8], [UInt8]) -> Void)?
    /// After a link has subscribed its channels again.
    var onReady: (() -> Void)?

    init(configuration: RedisConfiguration, loop: EventLoop, status: RedisConnectionStatus, sharing shared: RedisCluster?,
         log: @escaping StorageLog) {
        self.configuration = configuration
        self.loop = loop
        self.status = status
        self.log = log
        cluster = shared ?? RedisCluster(configuration: configuration, loop: loop, status: RedisConnectionStatus(), log: log)
        ownsCluster = shared == nil
    }

    func start() {
        guard !started, !closed else { return }
        started = true
        // On the loop, where a shared cluster's callback may be read; any earlier one still runs.
        let earlier = cluster.onTopology
        cluster.onTopology = { [weak self] in
            earlier?()
            self?.placeAll()
        }
        if ownsCluster { cluster.start() } else { placeAll() }
    }

    func close() {
        closed = true
        if ownsCluster { cluster.close() }
        for link in links.values { link.close() }
        links.removeAll()
        status.connected.store(false, ordering: .releasing)
    }

    func subscribe(_ channel: [UInt8]) { place(channel) }

    func unsubscribe(_ channel: [UInt8]) {
        redirects[channel] = nil
        guard let node = placed.removeValue(forKey: channel), let connection = links[node]?.ready else { return }
        Self.leave(connection, [channel])
    }

    // MARK: Private

    private func placeAll() {
        guard !closed, let map = cluster.map else { return }
        redirects.removeAll()
        for channel in channels() { place(channel) }
        let owners = Set(map.primaries)
        for (node, link) in links where !owners.contains(node) {
            links[node] = nil
            retiredReconnects += linkStatuses.removeValue(forKey: node)?.reconnects.load(ordering: .relaxed) ?? 0
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
        let linkStatus = RedisConnectionStatus()
        let link = RedisLink(name: "redis-subscriber", configuration: nodeConfiguration, loop: loop, selectsDatabase: false,
                             status: linkStatus, log: log)
        link.onReady = { [weak self] connection in self?.linkReady(node, connection) }
        link.onMessage = { [weak self] channel, payload in self?.onMessage?(channel, payload) }
        links[node] = link
        linkStatuses[node] = linkStatus
        link.start()
        return link
    }

    private func linkReady(_ node: RedisNodeAddress, _ connection: RedisConnection) {
        // Set before the first SSUBSCRIBE: what answers it may be a refusal.
        connection.onSubscriptionRefused = { [weak self] command, channels, message in
            self?.refused(node, command, channels, message)
        }
        connection.onUnsubscribed = { [weak self] channel in self?.dropped(node, channel) }
        let bySlot = Dictionary(grouping: placed.filter { $0.value == node }.map(\.key)) { RedisSlot.of($0) }
        for channels in bySlot.values where !Self.join(connection, channels) {
            connection.close(because: "SSUBSCRIBE could not be sent")
            return
        }
        updateStatus()
        onReady?()
    }

    /// `node` refused a subscription command. A refused `SUNSUBSCRIBE` (`MOVED`: the slot left
    /// the node, which dropped its subscribers then) needs nothing.
    private func refused(_ node: RedisNodeAddress, _ command: String, _ channels: [[UInt8]], _ message: String) {
        guard !closed, command == "SSUBSCRIBE" else { return }
        let stranded = channels.filter { placed[$0] == node }
        guard !stranded.isEmpty else { return }
        for channel in stranded { placed[channel] = nil }
        if let redirect = Redirect(message), redirect.moved {
            cluster.moved(slot: redirect.slot, to: redirect.node)
            for channel in stranded where redirects[channel, default: 0] < Self.maximumRedirects {
                redirects[channel, default: 0] += 1
                place(channel)
            }
        } else {
            log(.warning, "redis-subscriber \(node): SSUBSCRIBE refused (\(message)); trying again with the next map")
            cluster.refreshSoon()
        }
        updateStatus()
    }

    /// `node` dropped `channel` by itself: its slot has moved away (unless we left it ourselves).
    private func dropped(_ node: RedisNodeAddress, _ channel: [UInt8]) {
        guard !closed, placed[channel] == node else { return }
        placed[channel] = nil
        cluster.refreshSoon()
        place(channel)
    }

    /// Ready when the map is known and every link that carries a channel is up.
    private func updateStatus() {
        let connected = cluster.map != nil && Set(placed.values).allSatisfy { links[$0]?.ready != nil }
        status.connected.store(connected, ordering: .releasing)
        let reconnects = retiredReconnects + linkStatuses.values.reduce(0) { $0 + $1.reconnects.load(ordering: .relaxed) }
        status.reconnects.store(reconnects, ordering: .relaxed)
    }

    private static func join(_ connection: RedisConnection, _ channels: [[UInt8]]) -> Bool {
        connection.subscription("SSUBSCRIBE", channels: channels)
    }

    private static func leave(_ connection: RedisConnection, _ channels: [[UInt8]]) {
        _ = connection.subscription("SUNSUBSCRIBE", channels: channels)
    }
}
