import WhisperProtocol
import WhisperServices
import WhisperStorage

/// What Redis holds for an identity that deletes its account (`AccountDeletionService` step 4),
/// removed in one script. Its sessions are not here: they die last, through
/// `SessionStore.revokeAll`.
package final class RedisAccountQueueStore: AccountQueueStore {
    package enum PurgeKey: String, ScriptNames {
        /// `pending:{user}`, `pending-count` and `pending-index` (`PendingSlots`), `events:{user}`, `peers:{user}`,
        /// `push-wake:{user}`, `blocked:{user}`.
        case pending, pendingCount, pendingIndex, events, peers, pushWake, blocked
    }

    package enum PurgeArgument: String, ScriptNames { case user }

    /// Every queued message is counted in `pending-count` until it leaves the stream (accept
    /// INCRs, receipt and trim DECR), so the stream's length is what the total loses.
    /// Returns the number of queued messages removed (0 on a repeat).
    package static let purge = RedisScript(keys: PurgeKey.self, arguments: PurgeArgument.self, """
        local queued = redis.call('XLEN', k_pending)
        if queued > 0 then redis.call('DECRBY', k_pendingCount, queued) end
        redis.call('DEL', k_pending, k_events, k_peers, k_pushWake, k_blocked)
        redis.call('ZREM', k_pendingIndex, a_user)
        return queued
        """)

    private let redis: RedisClient
    private let keys: RedisKeys

    package init(redis: RedisClient, keys: RedisKeys) {
        self.redis = redis
        self.keys = keys
    }

    package func purge(_ whisperId: WhisperID, completion: @escaping StoreCompletion<Int>) {
        let call = RedisScriptCall(Self.purge, keys: { (name: PurgeKey) in
            switch name {
            case .pending: keys.pending(whisperId)
            case .pendingCount: keys.pendingCount(of: whisperId, cluster: redis.isCluster)
            case .pendingIndex: keys.pendingIndex(of: whisperId, cluster: redis.isCluster)
            case .events: keys.events(whisperId)
            case .peers: keys.peers(whisperId)
            case .pushWake: keys.pushWake(whisperId)
            case .blocked: keys.blocked(whisperId)
            }
        }, arguments: { (_: PurgeArgument) in Array(whisperId.string.utf8) })
        redis.evalScript(call) { result in
            completion(RedisReplies.value(result).flatMap { value in
                guard case .integer(let queued) = value, let count = Int(exactly: queued)
                else { return .failure(RedisReplies.unexpected(value)) }
                return .success(count)
            })
        }
    }
}
