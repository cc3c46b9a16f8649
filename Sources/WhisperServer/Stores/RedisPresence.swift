import WhisperProtocol
import WhisperServices
import WhisperStorage

/// Which socket holds each identity (`route:{whisperId}`), node liveness (`node:{id}`) and
/// the kept events of offline users, in Redis. One per loop.
final class RedisPresence {
    /// The `Limits` the scripts take, in their units.
    private struct Settings {
        let nodeTTLMillis: Int64
        let pendingTTLMillis: Int64
        /// Queues examined per heartbeat by the sweeper.
        let sweepBatch = 100

        init(_ limits: Limits) {
            nodeTTLMillis = Int64(limits.nodeTTLSeconds) * 1000
            pendingTTLMillis = limits.pendingTTLSeconds * 1000
        }
    }

    private let redis: RedisClient
    private let keys: RedisKeys
    private let node: String
    private let settings: Settings

    init(redis: RedisClient, keys: RedisKeys, node: String, limits: Limits) {
        self.redis = redis
        self.keys = keys
        self.node = node
        self.settings = Settings(limits)
    }

    /// `user` is now held by the socket at `route`: routes go there from now on; answers the
    /// events kept while the user was offline, oldest first (they are forgotten in Redis).
    func online(_ user: WhisperID, at route: LiveRoute, completion: @escaping StoreCompletion<[[UInt8]]>) {
        redis.evalScript(MessageScripts.online, keys: [keys.route(user), keys.events(user)],
                         arguments: [Array(route.text.utf8)]) { result in
            completion(RedisReplies.value(result).flatMap { value in
                guard let items = value.array else { return .failure(RedisReplies.unexpected(value)) }
                return .success(items.compactMap(\.bytes))
            })
        }
    }

    /// The socket at `route` no longer holds `user` (unless a newer socket took over).
    func offline(_ user: WhisperID, at route: LiveRoute, completion: @escaping StoreCompletion<Void>) {
        redis.evalScript(MessageScripts.offline, keys: [keys.route(user)], arguments: [Array(route.text.utf8)]) { result in
            completion(RedisReplies.value(result).map { _ in () })
        }
    }

    /// Renews this node's liveness key, sweeps pending queues that expired whole, and
    /// answers the number of pending messages on all nodes.
    func heartbeat(completion: @escaping StoreCompletion<Int64>) {
        let arguments: [[UInt8]] = [Array(String(settings.nodeTTLMillis).utf8), Array(String(settings.pendingTTLMillis).utf8),
                                    Array(keys.pendingPrefix.utf8), Array(String(settings.sweepBatch).utf8)]
        redis.evalScript(MessageScripts.heartbeat, keys: [keys.node(node), keys.pendingIndex, keys.pendingCount],
                         arguments: arguments) { result in
            completion(RedisReplies.value(result).flatMap { value in
                guard let count = value.integer else { return .failure(RedisReplies.unexpected(value)) }
                return .success(count)
            })
        }
    }
}
