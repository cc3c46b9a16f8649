import WhisperProtocol
import WhisperServices
import WhisperStorage

extension PresenceAnnouncement {
    /// `{frame, peer, route, …}` as `PresenceScripts` answer it; nil for another shape.
    package init?(_ value: RedisValue) {
        guard let items = value.array, let frame = items.first?.bytes, items.count % 2 == 1 else { return nil }
        var peers: [(user: WhisperID, route: LiveRoute)] = []
        for index in stride(from: 1, to: items.count, by: 2) {
            guard let user = items[index].string.flatMap(WhisperID.validate),
                  let route = items[index + 1].string.flatMap(LiveRoute.init(text:))
            else { return nil }
            peers.append((user, route))
        }
        self.init(frame: frame, peers: peers)
    }

    /// An empty array reply: nothing was announced now.
    package static func optional(_ value: RedisValue) -> PresenceAnnouncement?? {
        guard let items = value.array else { return nil }
        return items.isEmpty ? .some(nil) : PresenceAnnouncement(value).map { .some($0) }
    }
}

/// Which socket holds each identity (`route:{whisperId}`), what its direct peers were told
/// of it (`presence:{whisperId}`, `PresenceScripts`), node liveness (`node:{id}`, `nodes`)
/// and the kept events of offline users, in Redis. One per loop.
package final class RedisPresence: PresenceStore {
    /// The `Limits` the scripts take, in their units.
    private struct Settings {
        let nodeTTLMillis: Int64
        let pendingTTLMillis: Int64
        let offlineGraceMillis: Int64
        let presenceSweepBatch: Int

        init(_ limits: Limits) {
            nodeTTLMillis = Int64(limits.nodeTTLSeconds) * 1000
            pendingTTLMillis = limits.pendingTTLSeconds * 1000
            offlineGraceMillis = limits.presenceOfflineGraceMillis
            presenceSweepBatch = limits.presenceSweepBatch
        }
    }

    private let redis: RedisClient
    private let keys: RedisKeys
    private let node: String
    private let settings: Settings
    /// Loop 0's: the other loops never heartbeat.
    private lazy var pendingSweep = RedisPendingSweep(redis: redis, keys: keys, pendingTTLMillis: settings.pendingTTLMillis)
    /// The settings every `PresenceScripts` script takes at the end of its ARGV.
    private let announceArguments: [[UInt8]]

    package init(redis: RedisClient, keys: RedisKeys, node: String, limits: Limits) {
        self.redis = redis
        self.keys = keys
        self.node = node
        self.settings = Settings(limits)
        self.announceArguments = PresenceScripts.AnnounceSetting.allCases.map { setting in
            switch setting {
            case .node: Array(node.utf8)
            case .nodePrefix: Array(keys.nodePrefix.utf8)
            case .channelPrefix: Array(keys.deliveryChannelPrefix.utf8)
            case .routePrefix: Array(keys.routePrefix.utf8)
            case .presencePrefix: Array(keys.presencePrefix.utf8)
            case .peersPrefix: Array(keys.peersPrefix.utf8)
            case .minInterval: RedisMessageStore.text(limits.presenceMinIntervalMillis)
            case .peerWindow: RedisMessageStore.text(limits.directPeerWindowSeconds * 1000)
            case .maxPeers: RedisMessageStore.text(Int64(limits.maxPresencePeers))
            case .recordTTL: RedisMessageStore.text(Int64(limits.presenceRecordTTLSeconds) * 1000)
            case .blockedPrefix: Array(keys.blockedPrefix.utf8)
            }
        }
    }

    /// `user` is now held by the socket at `route`: routes go there from now on. Answers the
    /// events kept while the user was offline, oldest first (they are forgotten in Redis),
    /// the `online` announcement if one was made now, and whether calls are held for the user.
    package func online(_ user: WhisperID, at route: LiveRoute, completion: @escaping StoreCompletion<PresenceArrival>) {
        let call = RedisScriptCall(PresenceScripts.online, keys: { (name: PresenceScripts.OnlineKey) in
            switch name {
            case .route: keys.route(user)
            case .events: keys.events(user)
            case .nodeUsers: keys.nodeUsers(node)
            case .due: keys.presenceDue
            case .nodes: keys.nodes
            case .pushWake: keys.pushWake(user)
            case .held: keys.heldCalls(user)
            }
        }, arguments: { (name: PresenceScripts.OnlineArgument) in
            switch name {
            case .route: Array(route.text.utf8)
            case .user: Array(user.string.utf8)
            case .nodeUsersPrefix: Array(keys.nodeUsersPrefix.utf8)
            }
        }, moreArguments: announceArguments)
        redis.evalScript(call) { result in
            completion(RedisReplies.value(result).flatMap { value in
                guard let items = value.array, items.count == 3, let events = items[0].array,
                      let announcement = PresenceAnnouncement.optional(items[1]), let held = items[2].integer
                else { return .failure(RedisReplies.unexpected(value)) }
                return .success(PresenceArrival(events: events.compactMap(\.bytes), announcement: announcement, hasHeldCalls: held != 0))
            })
        }
    }

    /// The socket at `route` no longer holds `user` (unless a newer socket took over); the
    /// `offline` announcement waits for the grace period, unless that is zero.
    package func offline(_ user: WhisperID, at route: LiveRoute, completion: @escaping StoreCompletion<PresenceAnnouncement?>) {
        let call = RedisScriptCall(PresenceScripts.offline, keys: { (name: PresenceScripts.OfflineKey) in
            switch name {
            case .route: keys.route(user)
            case .nodeUsers: keys.nodeUsers(node)
            case .due: keys.presenceDue
            }
        }, arguments: { (name: PresenceScripts.OfflineArgument) in
            switch name {
            case .route: Array(route.text.utf8)
            case .user: Array(user.string.utf8)
            case .grace: RedisMessageStore.text(settings.offlineGraceMillis)
            }
        }, moreArguments: announceArguments)
        redis.evalScript(call) { result in
            completion(RedisReplies.value(result).flatMap { value in
                guard let announcement = PresenceAnnouncement.optional(value) else { return .failure(RedisReplies.unexpected(value)) }
                return .success(announcement)
            })
        }
    }

    /// Takes the users of dead nodes offline and makes the announcements that are due;
    /// answers those with peers on this node.
    package func sweep(completion: @escaping StoreCompletion<[PresenceAnnouncement]>) {
        let call = RedisScriptCall(PresenceScripts.sweep, keys: { (name: PresenceScripts.SweepKey) in
            switch name {
            case .due: keys.presenceDue
            case .nodes: keys.nodes
            }
        }, arguments: { (name: PresenceScripts.SweepArgument) in
            switch name {
            case .batch: RedisMessageStore.text(Int64(settings.presenceSweepBatch))
            case .nodeUsersPrefix: Array(keys.nodeUsersPrefix.utf8)
            case .nodeTTL: RedisMessageStore.text(settings.nodeTTLMillis)
            }
        }, moreArguments: announceArguments)
        redis.evalScript(call) { result in
            completion(RedisReplies.value(result).flatMap { value in
                guard let items = value.array else { return .failure(RedisReplies.unexpected(value)) }
                var announcements: [PresenceAnnouncement] = []
                for item in items {
                    guard let announcement = PresenceAnnouncement(item) else { return .failure(RedisReplies.unexpected(value)) }
                    announcements.append(announcement)
                }
                return .success(announcements)
            })
        }
    }

    /// Renews this node's liveness key, sweeps pending queues that expired whole
    /// (`RedisPendingSweep`), and answers the number of pending messages on all nodes.
    package func heartbeat(completion: @escaping StoreCompletion<Int64>) {
        redis.send([Array("SET".utf8), keys.node(node), Array("1".utf8), Array("PX".utf8),
                    RedisMessageStore.text(settings.nodeTTLMillis)]) { _ in }
        pendingSweep.run(completion: completion)
    }
}
