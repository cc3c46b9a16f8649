import WhisperServices
import WhisperStorage

/// Rate limits shared by every node: one sorted set per (subject, action) holding the
/// times of recent hits (a sliding-window log), checked and charged by one Lua script.
///
/// Why a log and not GCRA or a token bucket: docs/operations.md "Rate limits" says `"N/S"` admits at most N
/// hits in *any* S-second window. GCRA/token buckets with burst N refill continuously, so
/// right after a full burst they admit another hit one emission interval later — up to
/// 2N−1 in some window. The log is exact, and its memory is bounded by N per key (the
/// script never stores more than `count` entries, and the key expires after one window).
/// The script takes the time from Redis (`TIME`), so nodes with skewed clocks agree.
package final class RedisRateLimitStore: RateLimitStore {
    private let redis: RedisClient
    private let keys: RedisKeys

    /// Lua: `rate_limit(keys, first, member, args, at, now)` checks and charges the
    /// sliding-window logs `keys[first…]`, whose count/window (ms) pairs are `args[at…]`, with
    /// the hit named `member` at `now` (ms). Returns 0 when every key had room (one hit
    /// recorded in each), else the wait in ms (nothing recorded). A hit at t is in the window
    /// (now − W, now]; when a key is full, the wait is until its (used − count)-th oldest hit
    /// leaves the window. Hits that left the window are removed only when a key looks full
    /// (fewer than `count` entries, stale or not, can never exceed the limit), so the common
    /// case is ZCARD + ZADD + PEXPIRE, and a key never holds more than `count` entries.
    /// Shared by the message accept script, which charges SEND in the same round trip.
    package static let lua = """
        local function rate_limit(keys, first, member, args, at, now)
          local wait = 0
          for i = first, #keys do
            local count = tonumber(args[at + 2 * (i - first)])
            local window = tonumber(args[at + 2 * (i - first) + 1])
            local used = redis.call('ZCARD', keys[i])
            if used >= count then
              redis.call('ZREMRANGEBYSCORE', keys[i], '-inf', now - window)
              used = redis.call('ZCARD', keys[i])
              if used >= count then
                local entry = redis.call('ZRANGE', keys[i], used - count, used - count, 'WITHSCORES')
                local w = tonumber(entry[2]) + window - now
                if w > wait then wait = w end
              end
            end
          end
          if wait > 0 then return wait end
          for i = first, #keys do
            redis.call('ZADD', keys[i], now, member)
            redis.call('PEXPIRE', keys[i], args[at + 2 * (i - first) + 1])
          end
          return 0
        end

        """

    package enum Argument: String, ScriptNames {
        /// A unique member for this hit.
        case hit
    }

    /// KEYS: one sorted set per bucket; after the hit, ARGV holds a count/window (ms) pair per
    /// bucket. Returns {allowed, retryAfterMs}.
    package static let script = RedisScript(arguments: Argument.self, prelude: lua, """
        local t = redis.call('TIME')
        local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
        local wait = rate_limit(KEYS, k_rest, a_hit, ARGV, a_rest, now)
        if wait > 0 then return {0, wait} end
        return {1, 0}
        """)

    /// The arguments `rate_limit` reads for `buckets`: count and window (ms) per bucket.
    package static func limitArguments(_ buckets: [RateLimitBucket]) -> [[UInt8]] {
        buckets.flatMap { [Array(String($0.limit.count).utf8), Array(String($0.limit.windowSeconds * 1000).utf8)] }
    }

    /// `limitArguments`, written into a command.
    package static func limitArguments(_ buckets: [RateLimitBucket], into command: inout RedisCommand) {
        for bucket in buckets { limitArguments(of: bucket, into: &command) }
    }

    /// One bucket's pair: its count, its window in ms.
    package static func limitArguments(of bucket: RateLimitBucket, into command: inout RedisCommand) {
        command.append(bucket.limit.count)
        command.append(bucket.limit.windowSeconds * 1000)
    }

    package init(redis: RedisClient, keys: RedisKeys) {
        self.redis = redis
        self.keys = keys
    }

    /// On a Redis Cluster the buckets of different subjects (an identity and an address) live
    /// in different slots: each subject is charged by a script of its own, all in one round
    /// trip, and the hit is refused with the longest wait when any refused — a subject that
    /// had room is then charged anyway (the all-or-nothing of one script holds per subject).
    package func hit(_ buckets: [RateLimitBucket], nonce: String, completion: @escaping StoreCompletion<RateLimitDecision>) {
        guard !buckets.isEmpty else { return redis.loop.deferToEndOfIteration { completion(.success(.allowed)) } }
        guard redis.isCluster else { return charge(buckets, nonce: nonce, completion: completion) }
        let subjects = Dictionary(grouping: buckets) { RedisKeys.rateLimitTag($0.subject) }
        guard subjects.count > 1 else { return charge(buckets, nonce: nonce, completion: completion) }
        var remaining = subjects.count
        var decision = Result<RateLimitDecision, StoreError>.success(.allowed)
        for buckets in subjects.values {
            charge(buckets, nonce: nonce) { result in
                switch (decision, result) {
                case (.failure, _): break
                case (_, .failure): decision = result
                case (.success(.limited(let longest)), .success(.limited(let wait))) where longest >= wait: break
                case (_, .success(.limited)): decision = result
                case (_, .success(.allowed)): break
                }
                remaining -= 1
                if remaining == 0 { completion(decision) }
            }
        }
    }

    private func charge(_ buckets: [RateLimitBucket], nonce: String, completion: @escaping StoreCompletion<RateLimitDecision>) {
        let names = Argument.allCases.map { name in
            switch name {
            case .hit: Array(nonce.utf8)
            }
        }
        redis.evalScript(Self.script, keys: keys.rateLimits(buckets), arguments: names + Self.limitArguments(buckets)) { result in
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
