import WhisperProtocol
import WhisperServices
import WhisperStorage

/// `challenge:{id}` with a TTL, stored by a script that first charges the REGISTER rate
/// limit; consumed with GETDEL (Redis ≥ 6.2), which is atomic, so of
/// two racing proofs exactly one gets the challenge — in a script that also reads the
/// revocation epoch (`SessionStore.createExclusive`).
final class RedisChallengeStore: ChallengeStore {
    private let redis: RedisClient
    private let keys: RedisKeys

    init(redis: RedisClient, keys: RedisKeys) {
        self.redis = redis
        self.keys = keys
    }

    /// KEYS: 1 challenge:{id}, 2… REGISTER rate-limit logs. ARGV: 1 value, 2 TTL seconds,
    /// 3 hit name, 4… count/window pairs. Returns {1, 0} stored, {0, wait ms} refused.
    static let put = RedisScript(source: RedisRateLimitStore.lua + """
        local t = redis.call('TIME')
        local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
        local wait = rate_limit(KEYS, 2, ARGV[3], ARGV, 4, now)
        if wait > 0 then return {0, wait} end
        redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
        return {1, 0}
        """)

    func put(_ id: CanonicalUUID, value: [UInt8], ttlSeconds: Int64, rateLimit: RateLimitCharge,
             completion: @escaping StoreCompletion<RateLimitDecision>) {
        let scriptKeys = [keys.challenge(id)] + keys.rateLimits(rateLimit.buckets)
        let arguments = [value, Array(String(ttlSeconds).utf8), Array(rateLimit.nonce.utf8)]
            + RedisRateLimitStore.limitArguments(rateLimit.buckets)
        redis.evalScript(Self.put, keys: scriptKeys, arguments: arguments) { result in
            completion(RedisReplies.value(result).flatMap { value in
                guard let items = value.array, items.count == 2, let stored = items[0].integer, let wait = items[1].integer
                else { return .failure(RedisReplies.unexpected(value)) }
                return .success(stored == 1 ? .allowed : .limited(retryAfterMs: wait))
            })
        }
    }

    /// KEYS: 1 challenge:{id}, 2 revocation-epoch. Returns {epoch, value or nil}: one round
    /// trip, as the GETDEL it replaces.
    static let take = RedisScript(source: """
        return {redis.call('GET', KEYS[2]) or '0', redis.call('GETDEL', KEYS[1])}
        """)

    func take(_ id: CanonicalUUID, completion: @escaping StoreCompletion<TakenChallenge>) {
        redis.evalScript(Self.take, keys: [keys.challenge(id), keys.revocationEpoch], arguments: []) { result in
            completion(RedisReplies.value(result).flatMap { value in
                guard let items = value.array, items.count == 2, let epoch = items[0].string.flatMap({ Int64($0) }),
                      case .bulk(let bytes) = items[1]
                else { return .failure(RedisReplies.unexpected(value)) }
                return .success(TakenChallenge(value: bytes, revocationEpoch: epoch))
            })
        }
    }
}
