import WhisperStorage

/// The Lua steps behind `RedisSessionStore`, each on ONE hash slot, so the same steps run on a
/// standalone Redis and on a Redis Cluster (issue #27; docs/scaling.md "Past one Redis
/// primary"). A session `session:<hash>` is found from the token alone, so it cannot carry
/// its user's hash tag; everything else of a user — the index `sessions:{wid}`, the marker
/// `revoked:{wid}` and the revocations not yet announced `revoking:{wid}` — is in the user's
/// slot, and the index is what makes a session live:
///
/// - `find` reads `session:<hash>`, then answers it only if its hash is in `sessions:{wid}`.
/// - A new session (login, refresh) is written first (`write`, its own slot): until the
///   user's step adds it to the index it is an orphan that `find` refuses and its TTL removes.
/// - The user's step (`open`, `swap`, `remove`, `revokeAll`) changes the index and, in the same
///   atomic step, moves every hash it takes out of the index into `revoking:{wid}`; it answers
///   all of `revoking:{wid}` — this operation's hashes and those of an earlier one cut off
///   before it finished. From that step on those sessions are dead (not in the index).
/// - Then, each in its own slot: `DEL session:<hash>` for each of them (memory only: `find`
///   already refuses them) and the `RevocationNotice` published from Swift
///   (`RedisClient.publish`: SPUBLISH on a cluster, never from a script); only after both
///   `SREM revoking:{wid}` forgets them.
///
/// Why every cut between two steps is safe: after `write` alone, an orphan session nobody
/// holds a token of (refused by `find`); after the user's step alone, the revoked sessions are
/// refused by `find` (not in the index) and still listed in `revoking:{wid}`, so the next
/// operation on the user — the client's retry of its login, refresh or logout, the admin's
/// retry of a ban — deletes them and publishes their notice, which closes or un-authenticates
/// the sockets still holding them; after the deletes and the publish, the same notice at
/// most once more. Every step is safe to repeat (`SADD`/`SREM`/`DEL` of the same members; a
/// repeated `revokeAll` only moves the epoch further).
///
/// The revocation epoch is per user (`revoked:{wid}` field `v`): a login reads it in the user's
/// slot before its identity check (`SessionStore.revocationEpoch`), and `open` refuses the
/// session if a `revokeAll` (ban, deletion) raised it since — `revokeAll` raises it in the same
/// step that empties the index, so either the login's `open` runs first (and `revokeAll` takes
/// its session) or it sees the raised epoch. The epoch is `max(v + 1, Redis time in ms)`: it
/// only grows while the marker lives, and after the marker expired (one day) a new one still
/// starts above anything a login could have read from the old one.
package enum SessionScripts {
    /// The user's keys every index step names (some steps leave `revoked` unread).
    package enum UserKey: String, ScriptNames {
        /// `sessions:{wid}`, `revoked:{wid}`, `revoking:{wid}`.
        case index, revoked, revoking
    }

    /// Lua `condemn(hashes)`: adds them to `revoking:{wid}` and answers all its members.
    static let condemn = """
        local function condemn(hashes, ttl)
          if #hashes > 0 then redis.call('SADD', k_revoking, unpack(hashes)) end
          if redis.call('EXISTS', k_revoking) == 1 then redis.call('EXPIRE', k_revoking, ttl) end
          return redis.call('SMEMBERS', k_revoking)
        end

        """

    package enum WriteKey: String, ScriptNames {
        /// `session:<hash>`.
        case session
    }

    package enum WriteArgument: String, ScriptNames {
        /// In seconds.
        case ttl
    }

    /// A session's record, in its own slot. After the names, ARGV holds its field/value pairs.
    package static let write = RedisScript(keys: WriteKey.self, arguments: WriteArgument.self, """
        redis.call('HSET', k_session, unpack(ARGV, a_rest))
        redis.call('EXPIRE', k_session, a_ttl)
        return 1
        """)

    package enum OpenArgument: String, ScriptNames {
        /// `hash`: the new session's; `ttl` in seconds; `epoch`: the one the login read;
        /// `revokingTTL` of `revoking:{wid}`, seconds.
        case hash, ttl, epoch, revokingTTL
    }

    /// A login's step: unless the identity was revoked after `epoch`, the index becomes the
    /// new session alone. Returns {1, the hashes it took, every hash to announce}, or
    /// {0, the reason of the revocation} changing nothing.
    package static let open = RedisScript(keys: UserKey.self, arguments: OpenArgument.self, prelude: condemn, """
        local since = redis.call('HMGET', k_revoked, 'v', 'why')
        if since[1] and tonumber(since[1]) > tonumber(a_epoch) then return {0, since[2]} end
        local taken = {}
        for _, h in ipairs(redis.call('SMEMBERS', k_index)) do
          if h ~= a_hash then taken[#taken + 1] = h end
        end
        redis.call('DEL', k_index)
        redis.call('SADD', k_index, a_hash)
        redis.call('EXPIRE', k_index, a_ttl)
        return {1, taken, condemn(taken, a_revokingTTL)}
        """)

    package enum SwapArgument: String, ScriptNames {
        /// `expires`: the old session's expiry, ms since the epoch.
        case oldHash, newHash, expires, ttl, revokingTTL
    }

    /// A refresh's step: the old hash leaves the index for the new one. Returns {1, every
    /// hash to announce}, or {0, {}} when the old session is no longer live.
    package static let swap = RedisScript(keys: UserKey.self, arguments: SwapArgument.self, prelude: condemn, """
        local t = redis.call('TIME')
        if tonumber(t[1]) * 1000 >= tonumber(a_expires) then return {0, {}} end
        if redis.call('SREM', k_index, a_oldHash) == 0 then return {0, {}} end
        redis.call('SADD', k_index, a_newHash)
        redis.call('EXPIRE', k_index, a_ttl)
        return {1, condemn({a_oldHash}, a_revokingTTL)}
        """)

    package enum RemoveArgument: String, ScriptNames { case hash, revokingTTL }

    /// A logout's step. Returns {1 when the hash was live else 0, every hash to announce}.
    package static let remove = RedisScript(keys: UserKey.self, arguments: RemoveArgument.self, prelude: condemn, """
        if redis.call('SREM', k_index, a_hash) == 0 then return {0, condemn({}, a_revokingTTL)} end
        return {1, condemn({a_hash}, a_revokingTTL)}
        """)

    package enum RevokeAllArgument: String, ScriptNames {
        /// `markerTTL`: of `revoked:{wid}`, seconds.
        case reason, markerTTL, revokingTTL
    }

    /// A ban's or deletion's step: raises the identity's epoch and marks it revoked at it (so
    /// `open` refuses logins that read an older epoch), and empties the index. Returns {the
    /// hashes it took, every hash to announce}.
    package static let revokeAll = RedisScript(keys: UserKey.self, arguments: RevokeAllArgument.self, prelude: condemn, """
        local t = redis.call('TIME')
        local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
        local epoch = math.max(tonumber(redis.call('HGET', k_revoked, 'v') or '0') + 1, now)
        redis.call('HSET', k_revoked, 'v', string.format('%d', epoch), 'why', a_reason)
        redis.call('EXPIRE', k_revoked, a_markerTTL)
        local taken = redis.call('SMEMBERS', k_index)
        redis.call('DEL', k_index)
        return {taken, condemn(taken, a_revokingTTL)}
        """)
}
