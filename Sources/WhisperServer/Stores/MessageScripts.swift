import WhisperProtocol
import WhisperStorage

/// The Lua scripts behind `RedisMessageStore`, `RedisTypingStore` and `RedisPresence`'s heartbeat. Each is one atomic step,
/// so "stored" and "routed" cannot come apart, and a crash between them is impossible.
///
/// Routing (shared by accept and receipt): `route:{<user>}` names the socket
/// (`node:loop:connection`) holding the user's session. Same node → the script answers the
/// route and the caller writes the frame; another node that is alive (`node:{id}` exists) →
/// the script publishes `"<route> <user> <kind> <µs>\n<frame>"` on `deliver:{node}`; a dead
/// node's route is deleted. Time comes from Redis (`TIME`), so nodes with skewed clocks
/// agree on TTLs. Keys of other users are never built inside a script except `node:` and
/// `pending:` prefixes (single Redis or primary/replica, not Redis Cluster).
enum MessageScripts {
    /// Lua prelude: `now_ms()`, `route(...)`, `keep(...)` and `trim(...)` (also `CallScripts`' and
    /// `PresenceScripts`').
    static let prelude = """
        -- A tagged key: its family's prefix (ending in `{`), the id, `}` (RedisKeys).
        local function tagged(prefix, id) return prefix .. id .. '}' end
        local function now_ms()
          local t = redis.call('TIME')
          return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
        end
        -- Answers 'offline', 'remote', or the route text when the socket is on node `self`.
        -- A publish that reached no subscriber is 'offline' too: that node's process died (its
        -- key lives on until the TTL) or its subscriber is reconnecting, and the caller keeps
        -- the frame if it is an event, instead of handing it to nobody.
        local function route(key, user, kind, micros, frame, self, node_prefix, channel_prefix)
          local r = redis.call('GET', key)
          if not r then return 'offline' end
          local node = string.match(r, '^([^:]+):')
          if not node then redis.call('DEL', key) return 'offline' end
          if node == self then return r end
          if redis.call('EXISTS', tagged(node_prefix, node)) == 0 then
            redis.call('DEL', key)
            return 'offline'
          end
          local text = r .. ' ' .. user .. ' ' .. kind .. ' ' .. micros .. '\\n' .. frame()
          if redis.call('PUBLISH', channel_prefix .. node, text) == 0 then return 'offline' end
          return 'remote'
        end
        -- Keeps an event frame in an offline user's event queue (sent after its next login).
        local function keep(key, frame, ttl, max)
          redis.call('RPUSH', key, frame)
          redis.call('LTRIM', key, -tonumber(max), -1)
          redis.call('PEXPIRE', key, ttl)
        end
        local function trim(pending, count_key, cutoff)
          local n = redis.call('XTRIM', pending, 'MINID', cutoff)
          if n > 0 then redis.call('DECRBY', count_key, n) end
        end

        """

    /// KEYS: 1 msg:{to}:from:id, 2 pending:{to}, 3 route:{to}, 4 peers:{from}, 5 peers:{to},
    /// 6 pending-count, 7 pending-index, 8 push-wake:{to}, 9 blocked:{to}, [10 group-epoch:{groupId},
    /// 11 group-charge:{from}:groupId:id for a group message,] then the SEND rate-limit logs.
    /// ARGV: 1 to, 2 from, 3 payload, 4 pending TTL ms, 5 peer TTL ms, 6 max pending,
    /// 7 this node, 8 node key prefix, 9 delivery channel prefix, 10 received-at µs,
    /// 11 rate-limit hit name, 12 the group epoch the membership was checked under ('' for a
    /// direct message), 13 push coalescing window ms ('0': no push), 14 the messageId as the
    /// sender spelt it, 15… count/window pairs of the rate-limit logs.
    /// Returns {4} group membership changed, {3, wait ms} rate limited, {5} dropped (the
    /// recipient blocked the sender), {1} duplicate, {2} queue full, {0, entryId, routing, woke}:
    /// woke = 1 when the recipient is offline and this call claimed its push window (`SET NX
    /// PX`, as `RedisWakeUpClaims` does), so the caller sends the wake-up. The epoch is checked
    /// first: a stale check charges nothing (docs/protocol.md "Groups"). A group message is
    /// charged once: the first of its envelopes to pass the limit marks the group-charge key,
    /// and the others skip the limit (contract §15).
    static let accept = RedisScript(source: prelude + RedisRateLimitStore.lua + """
        local record, pending, route_key = KEYS[1], KEYS[2], KEYS[3]
        local pending_count, pending_index, push_wake, blocked = KEYS[6], KEYS[7], KEYS[8], KEYS[9]
        local to, from, payload, spelt = ARGV[1], ARGV[2], ARGV[3], ARGV[14]
        local ttl = tonumber(ARGV[4])
        local now = now_ms()
        local first_limit, group_charge = 10, nil
        if ARGV[12] ~= '' then
          if (redis.call('GET', KEYS[10]) or '\(GroupScripts.noEpoch)') ~= ARGV[12] then return {4} end
          first_limit, group_charge = 12, KEYS[11]
        end
        if not group_charge or redis.call('EXISTS', group_charge) == 0 then
          local wait = rate_limit(KEYS, first_limit, ARGV[11], ARGV, 15, now)
          if wait > 0 then return {3, wait} end
          if group_charge then redis.call('SET', group_charge, '1', 'PX', ttl) end
        end
        if redis.call('SISMEMBER', blocked, from) == 1 then return {5} end
        if redis.call('EXISTS', record) == 1 then return {1} end
        -- Expired entries are trimmed by fetch and by the sweeper, not here: the cap may
        -- count a few of them, which only makes it stricter.
        if redis.call('XLEN', pending) >= tonumber(ARGV[6]) then return {2} end
        local id = redis.call('XADD', pending, '*', 'm', payload)
        redis.call('PEXPIRE', pending, ttl + 3600000)
        redis.call('SET', record, id .. ' ' .. spelt, 'PX', ttl)
        redis.call('INCR', pending_count)
        redis.call('ZADD', pending_index, now, to)
        local peer_ttl = tonumber(ARGV[5])
        -- A pair that talks keeps its score (and the set its TTL) refreshed at most once per
        -- 1/1000 of the window (43 min of 30 days): a read per message instead of two writes
        -- (fewer commands, and a smaller AOF). Every write is a ZADD with its PEXPIRE, so the
        -- set lives at least the window past its newest score.
        local stale = now - math.floor(peer_ttl / 1000)
        for i, peer in ipairs({to, from}) do
          local key = KEYS[3 + i]
          local seen = redis.call('ZSCORE', key, peer)
          if not seen or tonumber(seen) < stale then
            -- Old peers are pruned when a new one joins (rare next to messages).
            if not seen then redis.call('ZREMRANGEBYSCORE', key, '-inf', now - peer_ttl) end
            redis.call('ZADD', key, now, peer)
            redis.call('PEXPIRE', key, peer_ttl)
          end
        end
        local frame = function() return \(lua(MessageFrames.messageReceivedPrefix)) .. payload .. \(lua(MessageFrames.messageReceivedSuffix)) end
        local where = route(route_key, to, 'm', ARGV[10], frame, ARGV[7], ARGV[8], ARGV[9])
        local woke = 0
        if where == 'offline' and ARGV[13] ~= '0' and redis.call('SET', push_wake, '1', 'NX', 'PX', ARGV[13]) then
          woke = 1
        end
        return {0, id, where, woke}
        """)

    /// A Lua string literal of `text`, for the frame envelopes the scripts splice.
    static func lua(_ text: String) -> String {
        var literal = "'"
        for character in text {
            if character == "\\" || character == "'" { literal.append("\\") }
            literal.append(character)
        }
        return literal + "'"
    }

    /// KEYS: 1 pending:{user}, 2 pending-count. ARGV: 1 start ('-' or '(' .. cursor),
    /// 2 count, 3 pending TTL ms. Returns XRANGE entries.
    static let fetch = RedisScript(source: prelude + """
        trim(KEYS[1], KEYS[2], now_ms() - tonumber(ARGV[3]))
        return redis.call('XRANGE', KEYS[1], ARGV[1], '+', 'COUNT', ARGV[2])
        """)

    /// KEYS: 1 msg:{recipient}:sender:id, 2 pending:{recipient}, 3 route:{sender},
    /// 4 events:{sender}, 5 pending-count, 6 msg:sender:id (the record of a message accepted
    /// before 2026-11-26, `RedisKeys.legacyMessage`).
    /// ARGV: 1 recipient, 2 status, 3 and 4 the notification frame before and after its
    /// messageId, 5 this node, 6 node key prefix, 7 delivery channel prefix, 8 event TTL ms,
    /// 9 max events, 10 sender, 11 the messageId as the receipt spelt it (for a legacy record,
    /// which did not keep the sender's spelling).
    /// Returns {0} unknown, {2} repeated delivered receipt, {1, removed, routing, messageId as
    /// the sender spelt it} where routing 'offline' means the frame was kept in the sender's
    /// event queue.
    static let receipt = RedisScript(source: prelude + """
        local record = KEYS[1]
        local v = redis.call('GET', record)
        local entry, spelt, state
        if v then
          entry, spelt, state = string.match(v, '^(%S+) (%S+) ?(%S*)$')
        else
          record = KEYS[6]
          v = redis.call('GET', record)
          if not v then return {0} end
          local recipient
          recipient, entry, state = string.match(v, '^(%S+) (%S+) ?(%S*)$')
          if recipient ~= ARGV[1] then return {0} end
          spelt = ARGV[11]
        end
        local removed = 0
        if ARGV[2] == 'delivered' then
          if state == 'd' then return {2} end
          removed = redis.call('XDEL', KEYS[2], entry)
          if removed > 0 then redis.call('DECR', KEYS[5]) end
          redis.call('SET', record, v .. ' d', 'KEEPTTL')
        end
        local notification = ARGV[3] .. spelt .. ARGV[4]
        local frame = function() return notification end
        local where = route(KEYS[3], ARGV[10], 'e', '0', frame, ARGV[5], ARGV[6], ARGV[7])
        if where == 'offline' then keep(KEYS[4], notification, ARGV[8], ARGV[9]) end
        return {1, removed, where, spelt}
        """)

    /// A typing signal: KEYS: 1 peers:{from}, 2 typing:{from}:{to}, 3 route:{to}, 4 blocked:{to},
    /// 5… TYPING rate-limit logs. ARGV: 1 to, 2 frame, 3 min interval ms, 4 peer window ms, 5 this
    /// node, 6 node key prefix, 7 delivery channel prefix, 8 rate-limit hit name, 9 from, 10…
    /// count/window pairs.
    /// Returns {3, wait ms} rate limited, {1} not a direct peer, {2} throttled, {4} `to` blocked
    /// `from` (docs/protocol.md "Blocking"), {0, routing}.
    /// Routed as kind 's': a node that finds the socket gone drops it, nothing is kept.
    static let typing = RedisScript(source: prelude + RedisRateLimitStore.lua + """
        local now = now_ms()
        local wait = rate_limit(KEYS, 5, ARGV[8], ARGV, 10, now)
        if wait > 0 then return {3, wait} end
        local seen = redis.call('ZSCORE', KEYS[1], ARGV[1])
        if not seen or tonumber(seen) < now - tonumber(ARGV[4]) then return {1} end
        if redis.call('SISMEMBER', KEYS[4], ARGV[9]) == 1 then return {4} end
        if not redis.call('SET', KEYS[2], '1', 'PX', ARGV[3], 'NX') then return {2} end
        local frame = function() return ARGV[2] end
        return {0, route(KEYS[3], ARGV[1], 's', '0', frame, ARGV[5], ARGV[6], ARGV[7])}
        """)

    /// KEYS: 1 events:{user}. ARGV: 1 frame, 2 event TTL ms, 3 max events.
    static let keepEvent = RedisScript(source: prelude + """
        keep(KEYS[1], ARGV[1], ARGV[2], ARGV[3])
        return 1
        """)

    /// Node heartbeat and pending-queue sweeper: KEYS: 1 node:{id}, 2 pending-index,
    /// 3 pending-count. ARGV: 1 node TTL ms, 2 pending TTL ms, 3 pending key prefix,
    /// 4 batch size. Drops queues whose newest message expired; answers the pending count.
    static let heartbeat = RedisScript(source: prelude + """
        redis.call('SET', KEYS[1], '1', 'PX', ARGV[1])
        local cutoff = now_ms() - tonumber(ARGV[2])
        local users = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', cutoff, 'LIMIT', 0, tonumber(ARGV[4]))
        for _, user in ipairs(users) do
          local key = tagged(ARGV[3], user)
          trim(key, KEYS[3], cutoff)
          if redis.call('XLEN', key) == 0 then redis.call('DEL', key) end
          redis.call('ZREM', KEYS[2], user)
        end
        return tonumber(redis.call('GET', KEYS[3]) or '0')
        """)
}
