import WhisperStorage

/// The Lua scripts behind `RedisPresence`: a socket coming to hold a user's session or
/// letting go of it, and the sweep every node runs (docs/protocol.md "Presence").
///
/// What a user's direct peers were last told is `presence:{user}` {s, t}. A change of the
/// user's status (its `route:` exists or not) is announced to its online direct peers when
/// both hold: the peers were told otherwise, and the last announcement is at least the
/// minimum interval old — and, for `offline`, the user has stayed away the grace period.
/// Otherwise the user waits in `presence-due` until then, and whichever node sweeps first
/// announces the status that holds at that time (maybe none, if it flapped back). So a
/// phone that flaps costs its peers at most one frame per interval, and they always end
/// up with its real status. Blocking (docs/protocol.md "Blocking") hides both ways: a peer the
/// user blocked, or that blocked the user (its `blocked:{peer}` set), is skipped.
///
/// Every script takes the same settings block at the end of ARGV, from position `base`:
/// +0 this node, +1 node key prefix, +2 delivery channel prefix, +3 route key prefix,
/// +4 presence key prefix, +5 peers key prefix, +6 min interval ms, +7 peer window ms,
/// +8 max peers, +9 presence record TTL ms, +10 blocked key prefix. Each prefix is a tagged
/// family's (`tagged(prefix, id)` is the key).
enum PresenceScripts {
    private static let announce = MessageScripts.prelude + """
        local function presence_frame(user, status, now)
          return '{"type":"presence","payload":{"whisperId":"' .. user .. '","status":"' .. status ..
            '","timestamp":' .. string.format('%d', now) .. '}}'
        end
        -- Announces `user`'s status to its direct peers if it is due (see above), else
        -- schedules it in `due`. Answers nil, or {frame, peer, route, …} for the peers whose
        -- sockets are on this node (the caller writes those; others were published).
        local function announce(user, now, grace, due, A, base)
          local record = tagged(A[base + 4], user)
          local status = redis.call('EXISTS', tagged(A[base + 3], user)) == 1 and 'online' or 'offline'
          local told = redis.call('HMGET', record, 's', 't')
          if told[1] == status then
            redis.call('ZREM', due, user)
            return nil
          end
          local at = (tonumber(told[2]) or 0) + tonumber(A[base + 6])
          if grace > 0 then at = math.max(at, now + grace) end
          if at > now then
            redis.call('ZADD', due, at, user)
            return nil
          end
          redis.call('ZREM', due, user)
          redis.call('HSET', record, 's', status, 't', now)
          redis.call('PEXPIRE', record, A[base + 9])
          local text = presence_frame(user, status, now)
          local frame = function() return text end
          local out = {text}
          local peers = redis.call('ZREVRANGEBYSCORE', tagged(A[base + 5], user), '+inf', now - tonumber(A[base + 7]),
                                   'LIMIT', 0, tonumber(A[base + 8]))
          local own = tagged(A[base + 10], user)
          local blocks = redis.call('EXISTS', own) == 1
          for _, peer in ipairs(peers) do
            if not (blocks and redis.call('SISMEMBER', own, peer) == 1)
               and redis.call('SISMEMBER', tagged(A[base + 10], peer), user) == 0 then
              local where = route(tagged(A[base + 3], peer), peer, 's', '0', frame, A[base], A[base + 1], A[base + 2])
              if where ~= 'offline' and where ~= 'remote' then
                out[#out + 1] = peer
                out[#out + 1] = where
              end
            end
          end
          return out
        end

        """

    /// A socket now holds the user's session. KEYS: 1 route:{user}, 2 events:{user},
    /// 3 node-users:{this node}, 4 presence-due, 5 nodes, 6 push-wake:{user}, 7 calls-held:{user}.
    /// ARGV: 1 route text, 2 user, 3 node-users prefix, 4… settings. Returns {kept events oldest
    /// first (now forgotten), announcement, 1 when calls are held for the user else 0} — with
    /// none held, the login skips `CallScripts.held` (a call offered from now on finds the route). The node is listed in `nodes` before it holds anyone, so a
    /// node that dies before its first sweep is still found. The user's push coalescing window
    /// ends: the next thing queued after it leaves wakes it again (docs/protocol.md "Push wake-ups").
    static let online = RedisScript(source: announce + """
        local now = now_ms()
        redis.call('ZADD', KEYS[5], 'NX', now, ARGV[4])
        local old = redis.call('GET', KEYS[1])
        local old_node = old and string.match(old, '^([^:]+):')
        if old_node and old_node ~= ARGV[4] then redis.call('SREM', tagged(ARGV[3], old_node), ARGV[2]) end
        redis.call('SET', KEYS[1], ARGV[1])
        redis.call('SADD', KEYS[3], ARGV[2])
        redis.call('PEXPIRE', tagged(ARGV[8], ARGV[2]), ARGV[13])
        redis.call('DEL', KEYS[6])
        local events = redis.call('LRANGE', KEYS[2], 0, -1)
        if #events > 0 then redis.call('DEL', KEYS[2]) end
        return {events, announce(ARGV[2], now, 0, KEYS[4], ARGV, 4) or {}, redis.call('EXISTS', KEYS[7])}
        """)

    /// The socket let go of the session. KEYS: 1 route:{user}, 2 node-users:{this node},
    /// 3 presence-due. ARGV: 1 its route text, 2 user, 3 offline grace ms, 4… settings.
    /// Deletes the route only if it is still this socket's (a newer login may own it).
    /// Returns the announcement (`{}` when none was made now).
    static let offline = RedisScript(source: announce + """
        if redis.call('GET', KEYS[1]) ~= ARGV[1] then return {} end
        redis.call('DEL', KEYS[1])
        redis.call('SREM', KEYS[2], ARGV[2])
        redis.call('PEXPIRE', tagged(ARGV[8], ARGV[2]), ARGV[13])
        return announce(ARGV[2], now_ms(), tonumber(ARGV[3]), KEYS[3], ARGV, 4) or {}
        """)

    /// Every node, every `Limits.presenceSweepIntervalMillis`. KEYS: 1 presence-due, 2 nodes.
    /// ARGV: 1 batch, 2 node-users prefix, 3 node TTL ms, 4… settings.
    /// Marks this node alive in `nodes`; takes the users of nodes that died (their node key
    /// expired) offline; then makes the announcements that are due, each claimed by the
    /// ZREM of this one atomic step, so exactly one node sends it.
    /// Returns the announcements with peers on this node.
    static let sweep = RedisScript(source: announce + """
        local now = now_ms()
        local budget = tonumber(ARGV[1])
        redis.call('ZADD', KEYS[2], now, ARGV[4])
        local dead = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now - tonumber(ARGV[3]), 'LIMIT', 0, 16)
        for _, node in ipairs(dead) do
          if budget <= 0 then break end
          if redis.call('EXISTS', tagged(ARGV[5], node)) == 0 then
            local users = tagged(ARGV[2], node)
            for _, user in ipairs(redis.call('SPOP', users, budget)) do
              -- Its route may be gone already (a message found the node dead), or belong
              -- to a newer login elsewhere: the announcement decides from what holds.
              local route_key = tagged(ARGV[7], user)
              local r = redis.call('GET', route_key)
              if r and string.sub(r, 1, #node + 1) == node .. ':' then redis.call('DEL', route_key) end
              redis.call('ZADD', KEYS[1], now, user)
              budget = budget - 1
            end
            if redis.call('SCARD', users) == 0 then redis.call('ZREM', KEYS[2], node) end
          end
        end
        local out = {}
        for _, user in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[1]))) do
          redis.call('ZREM', KEYS[1], user)
          local made = announce(user, now, 0, KEYS[1], ARGV, 4)
          if made then out[#out + 1] = made end
        end
        return out
        """)
}
