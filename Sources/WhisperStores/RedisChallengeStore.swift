import WhisperProtocol
import WhisperServices
import WhisperStorage

/// `challenge:<id>` with a TTL, stored only after the REGISTER rate limit allowed the hit
/// (`RedisRateLimitStore.hit`: one script on a standalone Redis, one per subject on a Redis
/// Cluster, where the address's and the identity's logs live in other slots than the
/// challenge); consumed with GETDEL (Redis ≥ 6.2), which is atomic, so of two racing proofs
/// exactly one gets the challenge. A node that dies between the charge and the SET has
/// charged a challenge it never issued: the client's retry is charged again.
package final class RedisChallengeStore: ChallengeStore {
    private let redis: RedisClient
    private let keys: RedisKeys
    private let rateLimits: RedisRateLimitStore

    package init(redis: RedisClient, keys: RedisKeys) {
        self.redis = redis
        self.keys = keys
        rateLimits = RedisRateLimitStore(redis: redis, keys: keys)
    }

    package func put(_ id: CanonicalUUID, value: [UInt8], ttlSeconds: Int64, rateLimit: RateLimitCharge,
                     completion: @escaping StoreCompletion<RateLimitDecision>) {
        rateLimits.hit(rateLimit.buckets, nonce: rateLimit.nonce) { [self] result in
            guard case .success(.allowed) = result else { return completion(result) }
            redis.send([Array("SET".utf8), keys.challenge(id), value, Array("EX".utf8), Array(String(ttlSeconds).utf8)]) { result in
                completion(RedisReplies.value(result).map { _ in .allowed })
            }
        }
    }

    package func take(_ id: CanonicalUUID, completion: @escaping StoreCompletion<[UInt8]?>) {
        redis.send([Array("GETDEL".utf8), keys.challenge(id)]) { result in
            completion(RedisReplies.value(result).flatMap { value in
                guard case .bulk(let bytes) = value else { return .failure(RedisReplies.unexpected(value)) }
                return .success(bytes)
            })
        }
    }
}
