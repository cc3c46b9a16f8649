import WhisperProtocol
import WhisperServices
import WhisperStorage

/// The push coalescing window (`push-wake:{user}`): `SET NX PX` is the claim, so of all the
/// nodes and loops that queue something for a user within the window exactly one sends.
package final class RedisWakeUpClaims: WakeUpClaims {
    private let redis: RedisClient
    private let keys: RedisKeys

    package init(redis: RedisClient, keys: RedisKeys) {
        self.redis = redis
        self.keys = keys
    }

    package func claim(_ user: WhisperID, windowMillis: Int64, completion: @escaping StoreCompletion<Bool>) {
        redis.send([Array("SET".utf8), keys.pushWake(user), Array("1".utf8), Array("NX".utf8), Array("PX".utf8),
                    RedisMessageStore.text(windowMillis)]) { result in
            completion(RedisReplies.value(result).map { !$0.isNull })
        }
    }
}
