import WhisperStorage

/// The Lua script behind `RedisBlockMirror.replace` (docs/protocol.md "Blocking").
enum BlockScripts {
    /// KEYS: 1 blocked:{user}. ARGV: the Whisper IDs the user blocks (maybe none).
    /// Replaces the set in one atomic step, so no script ever sees it half rebuilt; no ids
    /// leaves no key. `SADD` takes them in slices: Lua's `unpack` cannot spread 10,000 values.
    /// Returns the number of ids.
    static let replace = RedisScript(source: """
        redis.call('DEL', KEYS[1])
        for first = 1, #ARGV, 1000 do
          redis.call('SADD', KEYS[1], unpack(ARGV, first, math.min(first + 999, #ARGV)))
        end
        return #ARGV
        """)
}
