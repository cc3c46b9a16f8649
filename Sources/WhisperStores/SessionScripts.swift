import WhisperStorage

/// The Lua scripts behind `RedisSessionStore`. Each one changes sessions and publishes the
/// matching `RevocationNotice` in one atomic step, so no node can miss a revocation that
/// took effect (short of its subscriber being disconnected, which `RevocationListener`
/// covers by re-validating after every reconnect).
///
/// Keys of other sessions are built inside the scripts from the prefix (they are only
/// known from the index set): fine for a single Redis or a primary/replica pair, not yet for
/// Redis Cluster (docs/scaling.md "Past one Redis primary").
package enum SessionScripts {
    package enum CreateKey: String, ScriptNames {
        /// `sessions:{wid}`, `session:<new hash>`, `revoked:{wid}`.
        case index, session, revoked
    }

    package enum CreateArgument: String, ScriptNames {
        /// `hash`: the new one; `ttl` in seconds; `epoch`: the login's revocation epoch.
        case sessionPrefix, hash, ttl, channel, header, epoch
    }

    /// After the names, ARGV holds the new session's field/value pairs.
    /// Returns the revoked hashes, or — storing nothing — the reason of a revocation of the
    /// identity later than the login's epoch.
    package static let createExclusive = RedisScript(keys: CreateKey.self, arguments: CreateArgument.self, """
        local since = redis.call('HMGET', k_revoked, 'v', 'why')
        if since[1] and tonumber(since[1]) > tonumber(a_epoch) then return since[2] end
        local revoked = {}
        for _, h in ipairs(redis.call('SMEMBERS', k_index)) do
          if h ~= a_hash then
            redis.call('DEL', a_sessionPrefix .. h)
            revoked[#revoked + 1] = h
          end
        end
        redis.call('DEL', k_index)
        redis.call('HSET', k_session, unpack(ARGV, a_rest))
        redis.call('EXPIRE', k_session, a_ttl)
        redis.call('SADD', k_index, a_hash)
        redis.call('EXPIRE', k_index, a_ttl)
        if #revoked > 0 then
          redis.call('PUBLISH', a_channel, a_header .. table.concat(revoked, '\\n'))
        end
        return revoked
        """)

    package enum ReplaceKey: String, ScriptNames {
        /// `session:<old>`, `session:<new>`, `sessions:{wid}`.
        case old, new, index
    }

    package enum ReplaceArgument: String, ScriptNames {
        case oldHash, newHash, wid, ttl, channel, header
    }

    /// After the names, ARGV holds the new session's field/value pairs.
    /// Returns 1, or 0 when the old session is gone (or not this identity's).
    package static let replace = RedisScript(keys: ReplaceKey.self, arguments: ReplaceArgument.self, """
        if redis.call('HGET', k_old, 'wid') ~= a_wid then return 0 end
        redis.call('DEL', k_old)
        redis.call('HSET', k_new, unpack(ARGV, a_rest))
        redis.call('EXPIRE', k_new, a_ttl)
        redis.call('SREM', k_index, a_oldHash)
        redis.call('SADD', k_index, a_newHash)
        redis.call('EXPIRE', k_index, a_ttl)
        redis.call('PUBLISH', a_channel, a_header .. a_oldHash)
        return 1
        """)

    package enum DeleteKey: String, ScriptNames {
        /// `session:<hash>`, `sessions:{wid}`.
        case session, index
    }

    package enum DeleteArgument: String, ScriptNames { case hash, wid, channel, header }

    /// Returns 1, or 0 when the session is gone (or not this identity's).
    package static let delete = RedisScript(keys: DeleteKey.self, arguments: DeleteArgument.self, """
        if redis.call('HGET', k_session, 'wid') ~= a_wid then return 0 end
        redis.call('DEL', k_session)
        redis.call('SREM', k_index, a_hash)
        redis.call('PUBLISH', a_channel, a_header .. a_hash)
        return 1
        """)

    package enum RevokeAllKey: String, ScriptNames {
        /// `sessions:{wid}`, `revoked:{wid}`, `revocation-epoch`.
        case index, revoked, epoch
    }

    package enum RevokeAllArgument: String, ScriptNames {
        /// `markerTTL`: of `revoked:{wid}`, seconds.
        case sessionPrefix, channel, header, reason, markerTTL
    }

    /// Bumps the epoch and marks the identity revoked at
    /// it (so `createExclusive` refuses logins that read an older epoch), then kills the
    /// sessions. Publishes even when nothing was stored: a ban closes every socket of the
    /// identity. Returns the revoked hashes.
    package static let revokeAll = RedisScript(keys: RevokeAllKey.self, arguments: RevokeAllArgument.self, """
        local epoch = redis.call('INCR', k_epoch)
        redis.call('HSET', k_revoked, 'v', epoch, 'why', a_reason)
        redis.call('EXPIRE', k_revoked, a_markerTTL)
        local revoked = redis.call('SMEMBERS', k_index)
        for _, h in ipairs(revoked) do redis.call('DEL', a_sessionPrefix .. h) end
        redis.call('DEL', k_index)
        redis.call('PUBLISH', a_channel, a_header .. table.concat(revoked, '\\n'))
        return revoked
        """)
}
