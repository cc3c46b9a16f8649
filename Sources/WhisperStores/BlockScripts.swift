import WhisperStorage

/// The Lua script behind `RedisBlockMirror.replace` (docs/protocol.md "Blocking").
package enum BlockScripts {
    package enum ReplaceKey: String, ScriptNames {
        /// `blocked:{user}`.
        case blocked
    }

    /// ARGV: the Whisper IDs the user blocks (maybe none).
    /// Replaces the set in one atomic step, so no script ever sees it half rebuilt; no ids
    /// leaves no key. `SADD` takes them in slices: Lua's `unpack` cannot spread 10,000 values.
    /// Returns the number of ids.
    package static let replace = RedisScript(keys: ReplaceKey.self, """
        redis.call('DEL', k_blocked)
        for first = a_rest, #ARGV, 1000 do
          redis.call('SADD', k_blocked, unpack(ARGV, first, math.min(first + 999, #ARGV)))
        end
        return #ARGV
        """)
}
