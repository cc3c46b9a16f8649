import WhisperProtocol
import WhisperStorage

/// The Lua scripts behind `RedisCallStore` (docs/protocol.md "Calls"): every transition of a
/// call is one atomic step, so a call is answered, ended or timed out exactly once, whichever
/// node sees the frame or runs the sweep.
///
/// State: `call:{id}` is a hash {caller, callee, cid, phase r|a|e, offer, rung, at, blk}; a ringing call
/// is also in `calls:deadlines` (scored by its ring deadline) and in the callee's
/// `calls-held:{callee}`; the caller's candidates while it rings are in `call-ice:{id}`.
/// `rung` = 1 once a device of the callee confirmed the offer (`call_received`) and the caller
/// was sent `call_ringing`; an offer written to a live-looking socket (at the offer, or at a
/// login) is in `calls:confirm`, scored by its confirmation deadline, until the sweep claims
/// it (calls confirmed, answered or ended by then are skipped there, not removed early). An
/// ended call stays as phase `e` for `Limits.callEndedTTLSeconds`. Routing is
/// `MessageScripts.prelude`'s `route`; the sweep and the login script build `route:`,
/// `events:` and `call:` keys of users they read from state (single Redis, not Redis Cluster).
///
/// A call whose callee blocked the caller (`blocked:{callee}` holds the caller, docs/protocol.md
/// "Blocking") has `blk` = 1: it rings for the caller alone — no offer held or routed, no
/// confirmation deadline, no `call_ringing`, no push — its signals reach nobody, the callee
/// does not know it (its own signals and `call_received` on it are `NOT_FOUND`), and the sweep
/// times it out for the caller only.
enum CallScripts {
    /// `route_event`: routes an event (kind 'e'), keeping it in the user's event queue when
    /// nobody holds the user (docs/protocol.md "Calls": a `call_end` waits for the next login).
    /// `leave(key)`: the call is over: phase `e`, short TTL, out of every index.
    private static let helpers = """
        local function route_event(user, frame, route_prefix, events_prefix, self, node_prefix, channel_prefix, ttl, max)
          local where = route(tagged(route_prefix, user), user, 'e', '0', function() return frame end, self, node_prefix, channel_prefix)
          if where == 'offline' then
            local events = tagged(events_prefix, user)
            redis.call('RPUSH', events, frame)
            redis.call('LTRIM', events, -tonumber(max), -1)
            redis.call('PEXPIRE', events, ttl)
          end
          return where
        end
        local function unhold(key, id, deadlines, held, candidates)
          redis.call('HDEL', key, 'offer')
          redis.call('ZREM', deadlines, id)
          redis.call('ZREM', held, id)
          redis.call('DEL', candidates)
        end

        """

    /// KEYS: 1 call:{id}, 2 route:{callee}, 3 calls:deadlines, 4 calls-held:{callee},
    /// 5 blocked:{callee}, 6 calls:confirm, 7… CALL rate-limit logs. ARGV: 1 caller, 2 callee,
    /// 3 callId as spelt, 4 callId, 5 offer frame, 6 ring timeout ms, 7 ringing-state TTL ms,
    /// 8 confirmation timeout ms, 9 this node, 10 node key prefix, 11 delivery channel prefix,
    /// 12 rate-limit hit name, 13… count/window pairs.
    /// Returns {3, wait ms} rate limited, {2} callId in use, {4} the callee blocked the caller
    /// (a `blk` call: nothing held or routed), {0, routing}.
    static let initiate = RedisScript(source: MessageScripts.prelude + RedisRateLimitStore.lua + """
        local now = now_ms()
        local wait = rate_limit(KEYS, 7, ARGV[12], ARGV, 13, now)
        if wait > 0 then return {3, wait} end
        -- A callId is single-use: an offer never takes over a live or recently ended call.
        if redis.call('EXISTS', KEYS[1]) == 1 then return {2} end
        local deadline = now + tonumber(ARGV[6])
        if redis.call('SISMEMBER', KEYS[5], ARGV[1]) == 1 then
          redis.call('HSET', KEYS[1], 'caller', ARGV[1], 'callee', ARGV[2], 'cid', ARGV[3], 'phase', 'r', 'blk', '1')
          redis.call('PEXPIRE', KEYS[1], ARGV[7])
          redis.call('ZADD', KEYS[3], deadline, ARGV[4])
          return {4}
        end
        redis.call('HSET', KEYS[1], 'caller', ARGV[1], 'callee', ARGV[2], 'cid', ARGV[3], 'phase', 'r',
                   'offer', ARGV[5], 'rung', '0')
        redis.call('PEXPIRE', KEYS[1], ARGV[7])
        redis.call('ZADD', KEYS[3], deadline, ARGV[4])
        redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now)
        redis.call('ZADD', KEYS[4], deadline, ARGV[4])
        redis.call('PEXPIRE', KEYS[4], ARGV[7])
        local where = route(KEYS[2], ARGV[2], 's', '0', function() return ARGV[5] end, ARGV[9], ARGV[10], ARGV[11])
        -- `at`: the socket the offer reached, so a login still finishing there is not sent it
        -- twice. That socket only looks live: unconfirmed by the deadline, the callee is pushed.
        if where ~= 'offline' then
          redis.call('HSET', KEYS[1], 'at', redis.call('GET', KEYS[2]))
          redis.call('ZADD', KEYS[6], now + tonumber(ARGV[8]), ARGV[4])
        end
        return {0, where}
        """)

    /// `call_answer`, `call_ice_candidate`, `call_end`.
    /// KEYS: 1 call:{id}, 2 route:{to}, 3 calls:deadlines, 4 call-ice:{id}, 5 calls-held:{from},
    /// 6 calls-held:{to}, 7… CALL rate-limit logs.
    /// ARGV: 1 kind answer|ice|end, 2 from, 3 to, 4 callId, 5 frame, 6 answered TTL ms,
    /// 7 ended TTL ms, 8 this node, 9 node key prefix, 10 delivery channel prefix, 11 events
    /// prefix, 12 route prefix, 13 event TTL ms, 14 max events, 15 max held candidates,
    /// 16 rate-limit hit name, 17… count/window pairs.
    /// Returns {3, wait ms} rate limited, {1} unknown or ended (or a `blk` call's callee),
    /// {2} not a party, {4, setup result or ''} a `blk` call's caller (routed nowhere),
    /// {0, routing, setup result or ''}.
    static let signal = RedisScript(source: MessageScripts.prelude + RedisRateLimitStore.lua + helpers + """
        local now = now_ms()
        local wait = rate_limit(KEYS, 7, ARGV[16], ARGV, 17, now)
        if wait > 0 then return {3, wait} end
        local state = redis.call('HMGET', KEYS[1], 'caller', 'callee', 'phase', 'blk')
        local caller, callee, phase = state[1], state[2], state[3]
        if not phase or phase == 'e' then return {1} end
        local kind, from, to = ARGV[1], ARGV[2], ARGV[3]
        if not ((from == caller and to == callee) or (from == callee and to == caller)) then return {2} end
        if kind == 'answer' and from ~= callee then return {2} end
        if state[4] then
          if from == callee then return {1} end
          if kind ~= 'end' then return {4, ''} end
          unhold(KEYS[1], ARGV[4], KEYS[3], KEYS[5], KEYS[4])
          redis.call('HSET', KEYS[1], 'phase', 'e')
          redis.call('PEXPIRE', KEYS[1], ARGV[7])
          return {4, 'failed'}
        end
        if kind == 'end' then
          local setup = ''
          if phase == 'r' then
            if from == callee then setup = 'rejected' else setup = 'failed' end
          end
          unhold(KEYS[1], ARGV[4], KEYS[3], KEYS[5], KEYS[4])
          redis.call('ZREM', KEYS[6], ARGV[4])
          redis.call('HSET', KEYS[1], 'phase', 'e')
          redis.call('PEXPIRE', KEYS[1], ARGV[7])
          return {0, route_event(to, ARGV[5], ARGV[12], ARGV[11], ARGV[8], ARGV[9], ARGV[10], ARGV[13], ARGV[14]), setup}
        end
        local setup = ''
        if kind == 'answer' and phase == 'r' then
          setup = 'answered'
          phase = 'a'
          unhold(KEYS[1], ARGV[4], KEYS[3], KEYS[5], KEYS[4])
          redis.call('HSET', KEYS[1], 'phase', 'a')
        elseif kind == 'ice' and phase == 'r' and from == caller then
          -- Held with the offer for a callee that has not got it yet.
          if redis.call('LLEN', KEYS[4]) < tonumber(ARGV[15]) then
            redis.call('RPUSH', KEYS[4], ARGV[5])
            redis.call('PEXPIRE', KEYS[4], redis.call('PTTL', KEYS[1]))
          end
        end
        -- An answered call lives on while it signals (ICE restarts).
        if phase == 'a' then redis.call('PEXPIRE', KEYS[1], ARGV[6]) end
        return {0, route(KEYS[2], to, 's', '0', function() return ARGV[5] end, ARGV[8], ARGV[9], ARGV[10]), setup}
        """)

    /// `call_received`: KEYS: 1 call:{id}. ARGV: 1 the confirming user, 2 route prefix, 3 this
    /// node, 4 node key prefix, 5 delivery channel prefix. Returns {1} unknown or ended (or a
    /// `blk` call, which its callee does not know), {2} not the callee, {5} confirmed before or
    /// answered (nothing done), {0, caller, routing, ringing frame}: `rung` set and
    /// `call_ringing` routed to the caller.
    static let confirm = RedisScript(source: MessageScripts.prelude + """
        local s = redis.call('HMGET', KEYS[1], 'caller', 'callee', 'phase', 'rung', 'cid', 'blk')
        if not s[3] or s[3] == 'e' then return {1} end
        if s[2] ~= ARGV[1] then return {2} end
        if s[6] then return {1} end
        if s[4] == '1' or s[3] ~= 'r' then return {5} end
        redis.call('HSET', KEYS[1], 'rung', '1')
        local ring = \(MessageScripts.lua(CallEventFrames.ringingPrefix)) .. s[5] .. \(MessageScripts.lua(CallEventFrames.ringingSuffix))
        local where = route(tagged(ARGV[2], s[1]), s[1], 's', '0', function() return ring end, ARGV[3], ARGV[4], ARGV[5])
        return {0, s[1], where, ring}
        """)

    /// A user came online: KEYS: 1 calls-held:{user}, 2 blocked:{user}, 3 calls:confirm.
    /// ARGV: 1 user, 2 call key prefix, 3 candidates key prefix, 4 route prefix, 5 confirmation
    /// timeout ms. Returns the offers of calls ringing for the user, each followed by the
    /// caller's candidates, earliest deadline first — except those already written to the
    /// user's current socket (`at`: an offer that arrived between this login's route and this
    /// script) and those of callers the user blocks (held before the block reached Redis — a
    /// login rewrites the copy first: they become `blk` calls). An offer not confirmed yet gets
    /// a new confirmation deadline: this socket, too, only looks live until its app confirms.
    static let held = RedisScript(source: MessageScripts.prelude + """
        local now = now_ms()
        redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
        local here = redis.call('GET', tagged(ARGV[4], ARGV[1]))
        local frames = {}
        for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
          local key = tagged(ARGV[2], id)
          local s = redis.call('HMGET', key, 'caller', 'callee', 'phase', 'offer', 'rung', 'at')
          if s[3] ~= 'r' or s[2] ~= ARGV[1] or not s[4] then
            redis.call('ZREM', KEYS[1], id)
          elseif redis.call('SISMEMBER', KEYS[2], s[1]) == 1 then
            -- Held before the block reached Redis: from now on a `blk` call.
            redis.call('HSET', key, 'blk', '1')
            redis.call('HDEL', key, 'offer')
            redis.call('ZREM', KEYS[1], id)
            redis.call('DEL', tagged(ARGV[3], id))
          elseif s[6] ~= here then
            if here then redis.call('HSET', key, 'at', here) end
            frames[#frames + 1] = s[4]
            for _, c in ipairs(redis.call('LRANGE', tagged(ARGV[3], id), 0, -1)) do frames[#frames + 1] = c end
            if s[5] ~= '1' then redis.call('ZADD', KEYS[3], now + tonumber(ARGV[5]), id) end
          end
        end
        return frames
        """)

    /// The sweep, run by every node: KEYS: 1 calls:deadlines, 2 calls:confirm. ARGV: 1 call key
    /// prefix, 2 candidates key prefix, 3 held key prefix, 4 route prefix, 5 events prefix,
    /// 6 this node, 7 node key prefix, 8 delivery channel prefix, 9 event TTL ms, 10 max events,
    /// 11 ended TTL ms, 12 batch size.
    /// Claims (ZREM) every offer past its confirmation deadline and every call past its ring
    /// deadline — inside one script, so exactly one node gets each. Returns {unconfirmed,
    /// ended}: unconfirmed is {callee, callId as spelt, …} for offers still ringing that no
    /// device confirmed (their offer stays held: the claiming node pushes the callee); ended
    /// is {frame, caller, routing, callee, routing} per call it ended ({frame, caller,
    /// routing} for a `blk` call).
    static let sweep = RedisScript(source: MessageScripts.prelude + helpers + """
        local now = now_ms()
        local unconfirmed, ended = {}, {}
        for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, tonumber(ARGV[12]))) do
          redis.call('ZREM', KEYS[2], id)
          local s = redis.call('HMGET', tagged(ARGV[1], id), 'callee', 'phase', 'rung', 'cid', 'blk')
          if s[2] == 'r' and s[3] ~= '1' and not s[5] then
            unconfirmed[#unconfirmed + 1] = s[1]
            unconfirmed[#unconfirmed + 1] = s[4]
          end
        end
        for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[12]))) do
          redis.call('ZREM', KEYS[1], id)
          local key = tagged(ARGV[1], id)
          local s = redis.call('HMGET', key, 'caller', 'callee', 'phase', 'cid', 'blk')
          if s[3] == 'r' then
            unhold(key, id, KEYS[1], tagged(ARGV[3], s[2]), tagged(ARGV[2], id))
            redis.call('HSET', key, 'phase', 'e')
            redis.call('PEXPIRE', key, ARGV[11])
            local frame = \(MessageScripts.lua(CallEventFrames.timeoutPrefix)) .. s[4] .. \(MessageScripts.lua(CallEventFrames.timeoutSuffix))
            local entry = {frame}
            -- A `blk` call's callee never knew of it.
            for _, user in ipairs(s[5] and {s[1]} or {s[1], s[2]}) do
              entry[#entry + 1] = user
              entry[#entry + 1] = route_event(user, frame, ARGV[4], ARGV[5], ARGV[6], ARGV[7], ARGV[8], ARGV[9], ARGV[10])
            end
            ended[#ended + 1] = entry
          end
        end
        return {unconfirmed, ended}
        """)
}
