import WhisperProtocol
import WhisperServices
import WhisperStorage

/// A status announcement that reached peers whose sockets are on this node: the caller
/// writes `frame` to each of `peers` (peers on other nodes got it through their channel).
struct PresenceAnnouncement {
    let frame: [UInt8]
    let peers: [(user: WhisperID, route: LiveRoute)]

    /// `{frame, peer, route, …}` as `PresenceScripts` answer it; nil for another shape.
    init?(_ value: RedisValue) {
        guard let items = value.array, let frame = items.first?.bytes, items.count % 2 == 1 else { return nil }
        var peers: [(user: WhisperID, route: LiveRoute)] = []
        for index in stride(from: 1, to: items.count, by: 2) {
            guard let user = items[index].string.flatMap(WhisperID.validate),
                  let route = items[index + 1].string.flatMap(LiveRoute.init(text:))
            else { return nil }
            peers.append((user, route))
        }
        self.frame = frame
        self.peers = peers
    }

    /// An empty array reply: nothing was announced now.
    static func optional(_ value: RedisValue) -> PresenceAnnouncement?? {
        guard let items = value.array else { return nil }
        return items.isEmpty ? .some(nil) : PresenceAnnouncement(value).map { .some($0) }
    }
}

/// Which socket holds each identity (`route:{whisperId}`), what its direct peers were told
/// of it (`presence:{whisperId}`, `PresenceScripts`), node liveness (`node:{id}`, `nodes`)
/// and the kept events of offline users, in Redis. One per loop.
final class RedisPresence {
    /// What `online` found: the kept events, the announcement made now, held calls.
    struct Online {
        let events: [[UInt8]]
        let announcement: PresenceAnnouncement?
        /// Calls ring for the user: `RedisCallStore.heldCalls` has offers to replay.
        let hasHeldCalls: Bool
    }

    /// The `Limits` the scripts take, in their units.
    private struct Settings {
        let nodeTTLMillis: Int64
        let pendingTTLMillis: Int64
        let offlineGraceMillis: Int64
        let presenceSweepBatch: Int
        /// Queues examined per heartbeat by the sweeper.
        let sweepBatch = 100

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
    /// The settings block every `PresenceScripts` script takes at the end of its ARGV.
    private let announceArguments: [[UInt8]]

    init(redis: RedisClient, keys: RedisKeys, node: String, limits: Limits) {
        self.redis = redis
        self.keys = keys
        self.node = node
        self.settings = Settings(limits)
        self.announceArguments = [
            node, keys.nodePrefix, keys.deliveryChannelPrefix, keys.routePrefix, keys.presencePrefix, keys.peersPrefix,
            String(limits.presenceMinIntervalMillis), String(limits.directPeerWindowSeconds * 1000),
            String(limits.maxPresencePeers), String(limits.presenceRecordTTLSeconds * 1000), keys.blockedPrefix,
        ].map { Array($0.utf8) }
    }

    /// `user` is now held by the socket at `route`: routes go there from now on. Answers the
    /// events kept while the user was offline, oldest first (they are forgotten in Redis),
    /// the `online` announcement if one was made now, and whether calls are held for the user.
    func online(_ user: WhisperID, at route: LiveRoute, completion: @escaping StoreCompletion<Online>) {
        let arguments = [Array(route.text.utf8), Array(user.string.utf8), Array(keys.nodeUsersPrefix.utf8)] + announceArguments
        redis.evalScript(PresenceScripts.online, keys: [keys.route(user), keys.events(user), keys.nodeUsers(node), keys.presenceDue, keys.nodes,
                                                         keys.pushWake(user), keys.heldCalls(user)],
                         arguments: arguments) { result in
            completion(RedisReplies.value(result).flatMap { value in
                guard let items = value.array, items.count == 3, let events = items[0].array,
                      let announcement = PresenceAnnouncement.optional(items[1]), let held = items[2].integer
                else { return .failure(RedisReplies.unexpected(value)) }
                return .success(Online(events: events.compactMap(\.bytes), announcement: announcement, hasHeldCalls: held != 0))
            })
        }
    }

    /// The socket at `route` no longer holds `user` (unless a newer socket took over); the
    /// `offline` announcement waits for the grace period, unless that is zero.
    func offline(_ user: WhisperID, at route: LiveRoute, completion: @escaping StoreCompletion<PresenceAnnouncement?>) {
        let arguments = [Array(route.text.utf8), Array(user.string.utf8), RedisMessageStore.text(settings.offlineGraceMillis)]
            + announceArguments
        redis.evalScript(PresenceScripts.offline, keys: [keys.route(user), keys.nodeUsers(node), keys.presenceDue],
                         arguments: arguments) { result in
            completion(RedisReplies.value(result).flatMap { value in
                guard let announcement = PresenceAnnouncement.optional(value) else { return .failure(RedisReplies.unexpected(value)) }
                return .success(announcement)
            })
        }
    }

    /// Takes the users of dead nodes offline and makes the announcements that are due;
    /// answers those with peers on this node.
    func sweep(completion: @escaping StoreCompletion<[PresenceAnnouncement]>) {
        let arguments = [RedisMessageStore.text(Int64(settings.presenceSweepBatch)), Array(keys.nodeUsersPrefix.utf8),
                         RedisMessageStore.text(settings.nodeTTLMillis)] + announceArguments
        redis.evalScript(PresenceScripts.sweep, keys: [keys.presenceDue, keys.nodes], arguments: arguments) { result in
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

    /// Renews this node's liveness key, sweeps pending queues that expired whole, and
    /// answers the number of pending messages on all nodes.
    func heartbeat(completion: @escaping StoreCompletion<Int64>) {
        let call = RedisScriptCall(MessageScripts.heartbeat, keys: { (name: MessageScripts.HeartbeatKey) in
            switch name {
            case .node: keys.node(node)
            case .pendingIndex: keys.pendingIndex
            case .pendingCount: keys.pendingCount
            }
        }, arguments: { (name: MessageScripts.HeartbeatArgument) in
            switch name {
            case .nodeTTL: Array(String(settings.nodeTTLMillis).utf8)
            case .pendingTTL: Array(String(settings.pendingTTLMillis).utf8)
            case .pendingPrefix: Array(keys.pendingPrefix.utf8)
            case .batch: Array(String(settings.sweepBatch).utf8)
            }
        })
        redis.evalScript(call) { result in
            completion(RedisReplies.value(result).flatMap { value in
                guard let count = value.integer else { return .failure(RedisReplies.unexpected(value)) }
                return .success(count)
            })
        }
    }
}
