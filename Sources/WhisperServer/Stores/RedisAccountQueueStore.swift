import WhisperProtocol
import WhisperServices
import WhisperStorage

/// What Redis holds for an identity that deletes its account (`AccountDeletionService` step 4),
/// removed in one script. Its sessions are not here: they die last, through
/// `SessionStore.revokeAll`.
final class RedisAccountQueueStore: AccountQueueStore {
    /// KEYS: 1 pending:{user}, 2 pending-count, 3 pending-index, 4 events:{user}, 5 peers:{user},
    /// 6 push-wake:{user}, 7 blocked:{user}. ARGV: 1 user.
    /// Every queued message is counted in `pending-count` until it leaves the stream (accept
    /// INCRs, receipt and trim DECR), so the stream's length is what the total loses.
    /// Returns the number of queued messages removed (0 on a repeat).
    static let purge = RedisScript(source: """
        local queued = redis.call('XLEN', KEYS[1])
        if queued > 0 then redis.call('DECRBY', KEYS[2], queued) end
        redis.call('DEL', KEYS[1], KEYS[4], KEYS[5], KEYS[6], KEYS[7])
        redis.call('ZREM', KEYS[3], ARGV[1])
        return queued
        """)

    private let redis: RedisClient
    private let keys: RedisKeys

    init(redis: RedisClient, keys: RedisKeys) {
        self.redis = redis
        self.keys = keys
    }

    func purge(_ whisperId: WhisperID, completion: @escaping StoreCompletion<Int>) {
        redis.evalScript(Self.purge,
                         keys: [keys.pending(whisperId), keys.pendingCount, keys.pendingIndex, keys.events(whisperId),
                                keys.peers(whisperId), keys.pushWake(whisperId), keys.blocked(whisperId)],
                         arguments: [Array(whisperId.string.utf8)]) { result in
            completion(RedisReplies.value(result).flatMap { value in
                guard case .integer(let queued) = value, let count = Int(exactly: queued)
                else { return .failure(RedisReplies.unexpected(value)) }
                return .success(count)
            })
        }
    }
}
