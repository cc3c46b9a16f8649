import WhisperProtocol
import WhisperServices
import WhisperStorage

/// `BanNotices` over Redis pub/sub: the lifted identity's Whisper ID on the `ban-lifted`
/// channel, which every node subscribes to (`NodeSubscriptions+Channels`).
package final class RedisBanNotices: BanNotices {
    private let redis: RedisClient
    private let keys: RedisKeys

    package init(redis: RedisClient, keys: RedisKeys) {
        self.redis = redis
        self.keys = keys
    }

    package func announceLifted(_ whisperId: WhisperID, completion: @escaping StoreCompletion<Void>) {
        redis.publish(keys.banLiftedChannel, Array(whisperId.string.utf8)) { result in
            completion(result.map { _ in () }.mapError { .unavailable($0.description) })
        }
    }
}
