import WhisperProtocol
import WhisperServices
import WhisperStorage

/// `challenge:{id}` with a TTL, stored by a script that first charges the REGISTER rate
/// limit; consumed with GETDEL (Redis ≥ 6.2), which is atomic, so of
/// two racing proofs exactly one gets the challenge — in a script that also reads the
/// revocation epoch (`SessionStore.createExclusive`).
package final class RedisChallengeStore: ChallengeStore {
    private let redis: RedisClient
    private let keys: RedisKeys

    package init(redis: RedisClient, keys: RedisKeys) {
        self.redis = redis
        self.keys = keys
    }

    package enum PutKey: String, ScriptNames { case challenge }
    package enum PutArgument: String, ScriptNames {
        /// `ttl` in seconds; `hit`: the rate-limit hit's name.
        case value, ttl, hit
    }

    /// After the names: KEYS the REGISTER rate-limit logs, ARGV their count/window pairs.
    /// Returns {1, 0} stored, {0, wait ms} refused.
    package static let put = RedisScript(keys: PutKey.self, arguments: PutArgument.self, prelude: RedisRateLimitStore.lua, """
        local t = redis.call('TIME')
        local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
        local wait = rate_limit(KEYS, k_rest, a_hit, ARGV, a_rest, now)
        if wait > 0 then return {0, wait} end
        redis.call('SET', k_challenge, a_value, 'EX', a_ttl)
        return {1, 0}
        """)

    package func put(_ id: CanonicalUUID, value: [UInt8], ttlSeconds: Int64, rateLimit: RateLimitCharge,
                     completion: @escaping StoreCompletion<RateLimitDecision>) {
        let call = RedisScriptCall(Self.put, keys: { (_: PutKey) in keys.challenge(id) }, arguments: { (name: PutArgument) in
            switch name {
            case .value: value
            case .ttl: Array(String(ttlSeconds).utf8)
            case .hit: Array(rateLimit.nonce.utf8)
            }
        }, moreKeys: keys.rateLimits(rateLimit.buckets), moreArguments: RedisRateLimitStore.limitArguments(rateLimit.buckets))
        redis.evalScript(call) { result in
            completion(RedisReplies.value(result).flatMap { value in
                guard let items = value.array, items.count == 2, let stored = items[0].integer, let wait = items[1].integer
                else { return .failure(RedisReplies.unexpected(value)) }
                return .success(stored == 1 ? .allowed : .limited(retryAfterMs: wait))
            })
        }
    }

    package enum TakeKey: String, ScriptNames {
        /// `challenge:<id>`, `revocation-epoch`.
        case challenge, epoch
    }

    /// Returns {epoch, value or nil}: one round trip, as the GETDEL it replaces.
    package static let take = RedisScript(keys: TakeKey.self, """
        return {redis.call('GET', k_epoch) or '0', redis.call('GETDEL', k_challenge)}
        """)

    package func take(_ id: CanonicalUUID, completion: @escaping StoreCompletion<TakenChallenge>) {
        let names = TakeKey.allCases.map { name in
            switch name {
            case .challenge: keys.challenge(id)
            case .epoch: keys.revocationEpoch
            }
        }
        redis.evalScript(Self.take, keys: names, arguments: []) { result in
            completion(RedisReplies.value(result).flatMap { value in
                guard let items = value.array, items.count == 2, let epoch = items[0].string.flatMap({ Int64($0) }),
                      case .bulk(let bytes) = items[1]
                else { return .failure(RedisReplies.unexpected(value)) }
                return .success(TakenChallenge(value: bytes, revocationEpoch: epoch))
            })
        }
    }
}
