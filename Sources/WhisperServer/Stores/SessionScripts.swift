import WhisperStorage

/// The Lua scripts behind `RedisSessionStore`. Each one changes sessions and publishes the
/// matching `RevocationNotice` in one atomic step, so no node can miss a revocation that
/// took effect (short of its subscriber being disconnected, which `RevocationListener`
/// covers by re-validating after every reconnect).
///
/// Keys of other sessions are built inside the scripts from the prefix (they are only
/// known from the index set): fine for a single Redis or a primary/replica pair, not for
/// Redis Cluster, which this relay does not use.
enum SessionScripts {
    /// KEYS[1] = sessions:{wid}, KEYS[2] = session:{new}, KEYS[3] = revoked:{wid}.
    /// ARGV[1] = session key prefix, ARGV[2] = new hash, ARGV[3] = TTL seconds,
    /// ARGV[4] = channel, ARGV[5] = notice header, ARGV[6] = the login's revocation epoch,
    /// ARGV[7…] = field/value pairs.
    /// Returns the revoked hashes, or — storing nothing — the reason of a revocation of the
    /// identity later than the login's epoch.
    static let createExclusive = RedisScript(source: """
        local since = redis.call('HMGET', KEYS[3], 'v', 'why')
        if since[1] and tonumber(since[1]) > tonumber(ARGV[6]) then return since[2] end
        local revoked = {}
        for _, h in ipairs(redis.call('SMEMBERS', KEYS[1])) do
          if h ~= ARGV[2] then
            redis.call('DEL', ARGV[1] .. h)
            revoked[#revoked + 1] = h
          end
        end
        redis.call('DEL', KEYS[1])
        redis.call('HSET', KEYS[2], unpack(ARGV, 7))
        redis.call('EXPIRE', KEYS[2], ARGV[3])
        redis.call('SADD', KEYS[1], ARGV[2])
        redis.call('EXPIRE', KEYS[1], ARGV[3])
        if #revoked > 0 then
          redis.call('PUBLISH', ARGV[4], ARGV[5] .. table.concat(revoked, '\\n'))
        end
        return revoked
        """)

    /// KEYS[1] = session:{old}, KEYS[2] = session:{new}, KEYS[3] = sessions:{wid}.
    /// ARGV[1] = old hash, ARGV[2] = new hash, ARGV[3] = wid, ARGV[4] = TTL seconds,
    /// ARGV[5] = channel, ARGV[6] = notice header, ARGV[7…] = field/value pairs of the new
    /// session. Returns 1, or 0 when the old session is gone (or not this identity's).
    static let replace = RedisScript(source: """
        if redis.call('HGET', KEYS[1], 'wid') ~= ARGV[3] then return 0 end
        redis.call('DEL', KEYS[1])
        redis.call('HSET', KEYS[2], unpack(ARGV, 7))
        redis.call('EXPIRE', KEYS[2], ARGV[4])
        redis.call('SREM', KEYS[3], ARGV[1])
        redis.call('SADD', KEYS[3], ARGV[2])
        redis.call('EXPIRE', KEYS[3], ARGV[4])
        redis.call('PUBLISH', ARGV[5], ARGV[6] .. ARGV[1])
        return 1
        """)

    /// KEYS[1] = session:{hash}, KEYS[2] = sessions:{wid}.
    /// ARGV[1] = hash, ARGV[2] = wid, ARGV[3] = channel, ARGV[4] = notice header.
    /// Returns 1, or 0 when the session is gone (or not this identity's).
    static let delete = RedisScript(source: """
        if redis.call('HGET', KEYS[1], 'wid') ~= ARGV[2] then return 0 end
        redis.call('DEL', KEYS[1])
        redis.call('SREM', KEYS[2], ARGV[1])
        redis.call('PUBLISH', ARGV[3], ARGV[4] .. ARGV[1])
        return 1
        """)

    /// KEYS[1] = sessions:{wid}, KEYS[2] = revoked:{wid}, KEYS[3] = revocation-epoch.
    /// ARGV[1] = session key prefix, ARGV[2] = channel, ARGV[3] = notice header, ARGV[4] =
    /// reason, ARGV[5] = marker TTL seconds. Bumps the epoch and marks the identity revoked at
    /// it (so `createExclusive` refuses logins that read an older epoch), then kills the
    /// sessions. Publishes even when nothing was stored: a ban closes every socket of the
    /// identity. Returns the revoked hashes.
    static let revokeAll = RedisScript(source: """
        local epoch = redis.call('INCR', KEYS[3])
        redis.call('HSET', KEYS[2], 'v', epoch, 'why', ARGV[4])
        redis.call('EXPIRE', KEYS[2], ARGV[5])
        local revoked = redis.call('SMEMBERS', KEYS[1])
        for _, h in ipairs(revoked) do redis.call('DEL', ARGV[1] .. h) end
        redis.call('DEL', KEYS[1])
        redis.call('PUBLISH', ARGV[2], ARGV[3] .. table.concat(revoked, '\\n'))
        return revoked
        """)
}
