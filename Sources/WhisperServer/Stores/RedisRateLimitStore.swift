import WhisperServices
import WhisperStorage

/// Rate limits shared by every node: one sorted set per (subject, action) holding the
/// times of recent hits (a sliding-window log), checked and charged by one Lua script.
///
/// Why a log and not GCRA or a token bucket: contract §14 says `"N/S"` admits at most N
/// hits in *any* S-second window. GCRA/token buckets with burst N refill continuously, so
/// right after a full burst they admit another hit one emission interval later — up to
/// 2N−1 in some window. The log is exact, and its memory is bounded by N per key (the
/// script never stores more than `count` entries, and the key expires after one window).
/// The script takes the time from Redis (`TIME`), so nodes with skewed clocks agree.
final class RedisRateLimitStore: RateLimitStore {
    private let redis: RedisClient
    private let keys: RedisKeys

    /// KEYS: one sorted set per bucket. ARGV[1]: a unique member for this hit; then per
    /// bucket i: ARGV[2i] = count, ARGV[2i+1] = window in ms. Returns {allowed, retryAfterMs}.
    /// A hit at t is in the window (now − W, now]; when a key is full, the wait is until its
    /// (used − count)-th oldest hit leaves the window.
    static let script = RedisScript(source: """
        local t = redis.call('TIME')
        local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
        local wait = 0
        for i, key in ipairs(KEYS) do
          local count = tonumber(ARGV[2 * i])
          local window = tonumber(ARGV[2 * i + 1])
          redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
          local used = redis.call('ZCARD', key)
          if used >= count then
            local entry = redis.call('ZRANGE', key, used - count, used - count, 'WITHSCORES')
            local w = tonumber(entry[2]) + window - now
            if w > wait then wait = w end
          end
        end
        if wait > 0 then return {0, wait} end
        for i, key in ipairs(KEYS) do
          redis.call('ZADD', key, now, ARGV[1])
          redis.call('PEXPIRE', key, ARGV[2 * i + 1])
        end
        return {1, 0}
        """)

    init(redis: RedisClient, keys: RedisKeys) {
        self.redis = redis
        self.keys = keys
    }

    func hit(_ buckets: [RateLimitBucket], nonce: String, completion: @escaping StoreCompletion<RateLimitDecision>) {
        guard !buckets.isEmpty else { return redis.loop.deferToEndOfIteration { completion(.success(.allowed)) } }
        var arguments: [[UInt8]] = [Array(nonce.utf8)]
        for bucket in buckets {
            arguments.append(Array(String(bucket.limit.count).utf8))
            arguments.append(Array(String(bucket.limit.windowSeconds * 1000).utf8))
        }
        let redisKeys = buckets.map { keys.rateLimit(subject: $0.subject, action: $0.action) }
        redis.evalScript(Self.script, keys: redisKeys, arguments: arguments) { result in
            switch RedisReplies.value(result) {
            case .success(let value):
                guard let items = value.array, items.count == 2, let allowed = items[0].integer,
                      let wait = items[1].integer
                else { return completion(.failure(RedisReplies.unexpected(value))) }
                completion(.success(allowed == 1 ? .allowed : .limited(retryAfterMs: wait)))
            case .failure(let error):
                completion(.failure(error))
            }
        }
    }
}
