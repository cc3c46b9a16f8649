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
/// `events:` and `call:` keys of users they read from state: these scripts run on a standalone
/// Redis; on a Redis Cluster the same operations are steps of one slot each (`CallStepScripts`).
///
/// A call whose callee blocked the caller (`blocked:{callee}` holds the caller, docs/protocol.md
/// "Blocking") has `blk` = 1: it rings for the caller alone — no offer held or routed, no
/// confirmation deadline, no `call_ringing`, no push — its signals reach nobody, the callee
/// does not know it (its own signals and `call_received` on it are `NOT_FOUND`), and the sweep
/// times it out for the caller only.
package enum CallScripts {
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

    package enum InitiateKey: String, ScriptNames {
        /// `call:{id}`, `route:{callee}`, `calls:deadlines`, `calls-held:{callee}`,
        /// `blocked:{callee}`, `calls:confirm`.
        case call, route, deadlines, held, blocked, confirmDeadlines
    }

    package enum InitiateArgument: String, ScriptNames {
        /// `spelt`: the callId as the caller spelt it; `offer`: its frame; the durations in ms.
        case caller, callee, spelt, callId, offer, ringTimeout, ringingTTL, confirmTimeout
        /// The rate-limit hit's name.
        case hit
    }

    /// After the names: KEYS the CALL rate-limit logs, ARGV their count/window pairs.
    /// Returns {3, wait ms} rate limited, {2} callId in use, {4} the callee blocked the caller
    /// (a `blk` call: nothing held or routed), {0, routing}.
    package static let initiate = RedisScript(keys: InitiateKey.self, arguments: InitiateArgument.self, RouteArgument.self,
                                              prelude: MessageScripts.prelude + RedisRateLimitStore.lua, """
        local now = now_ms()
        local wait = rate_limit(KEYS, k_rest, a_hit, ARGV, a_rest, now)
        if wait > 0 then return {3, wait} end
        -- A callId is single-use: an offer never takes over a live or recently ended call.
        if redis.call('EXISTS', k_call) == 1 then return {2} end
        local deadline = now + tonumber(a_ringTimeout)
        if redis.call('SISMEMBER', k_blocked, a_caller) == 1 then
          redis.call('HSET', k_call, 'caller', a_caller, 'callee', a_callee, 'cid', a_spelt, 'phase', 'r', 'blk', '1')
          redis.call('PEXPIRE', k_call, a_ringingTTL)
          redis.call('ZADD', k_deadlines, deadline, a_callId)
          return {4}
        end
        redis.call('HSET', k_call, 'caller', a_caller, 'callee', a_callee, 'cid', a_spelt, 'phase', 'r',
                   'offer', a_offer, 'rung', '0')
        redis.call('PEXPIRE', k_call, a_ringingTTL)
        redis.call('ZADD', k_deadlines, deadline, a_callId)
        redis.call('ZREMRANGEBYSCORE', k_held, '-inf', now)
        redis.call('ZADD', k_held, deadline, a_callId)
        redis.call('PEXPIRE', k_held, a_ringingTTL)
        local where = route(k_route, a_callee, 's', '0', function() return a_offer end, a_node, a_nodePrefix, a_channelPrefix)
        -- `at`: the socket the offer reached, so a login still finishing there is not sent it
        -- twice. That socket only looks live: unconfirmed by the deadline, the callee is pushed.
        if where ~= 'offline' then
          redis.call('HSET', k_call, 'at', redis.call('GET', k_route))
          redis.call('ZADD', k_confirmDeadlines, now + tonumber(a_confirmTimeout), a_callId)
        end
        return {0, where}
        """)

    package enum SignalKey: String, ScriptNames {
        /// `call:{id}`, `route:{to}`, `calls:deadlines`, `call-ice:{id}`, `calls-held:{from}`,
        /// `calls-held:{to}`.
        case call, route, deadlines, candidates, fromHeld, toHeld
    }

    package enum SignalArgument: String, ScriptNames {
        /// `kind`: answer|ice|end; the TTLs in ms; `maxCandidates`: held ICE candidates at most.
        case kind, from, to, callId, frame, answeredTTL, endedTTL
        case eventsPrefix, routePrefix, eventTTL, maxEvents, maxCandidates
        /// The rate-limit hit's name.
        case hit
    }

    /// `call_answer`, `call_ice_candidate`, `call_end`. After the names: KEYS the CALL
    /// rate-limit logs, ARGV their count/window pairs.
    /// Returns {3, wait ms} rate limited, {1} unknown or ended (or a `blk` call's callee),
    /// {2} not a party, {4, setup result or ''} a `blk` call's caller (routed nowhere),
    /// {0, routing, setup result or ''}.
    package static let signal = RedisScript(keys: SignalKey.self, arguments: SignalArgument.self, RouteArgument.self,
                                            prelude: MessageScripts.prelude + RedisRateLimitStore.lua + helpers + transition, """
        local wait = rate_limit(KEYS, k_rest, a_hit, ARGV, a_rest, now_ms())
        if wait > 0 then return {3, wait} end
        local refused, step, setup = transition(k_call, k_candidates, a_kind, a_from, a_to, a_frame, a_maxCandidates, a_endedTTL, function()
          unhold(k_call, a_callId, k_deadlines, k_fromHeld, k_candidates)
          redis.call('ZREM', k_toHeld, a_callId)
        end)
        if refused then return refused end
        if step == 'end' then
          return {0, route_event(a_to, a_frame, a_routePrefix, a_eventsPrefix, a_node, a_nodePrefix, a_channelPrefix, a_eventTTL, a_maxEvents), setup}
        end
        -- An answered call lives on while it signals (ICE restarts).
        if step ~= 'r' then redis.call('PEXPIRE', k_call, a_answeredTTL) end
        return {0, route(k_route, a_to, 's', '0', function() return a_frame end, a_node, a_nodePrefix, a_channelPrefix), setup}
        """)

    /// Lua `transition(call, candidates, kind, from, to, frame, max, ended_ttl, over)`: a
    /// signal's checks and its transition on the call hash (the single script's and the
    /// cluster's call step, `CallStepScripts.signal`); `over()` takes the call out of ringing
    /// in the caller's own indexes. Answers a reply to return as it is ({1} unknown or ended,
    /// or a `blk` call's callee; {2} not a party, or the caller answering; {4, setup or ''} a
    /// `blk` call's caller), or nil, then 'end' (ended), 'answer' (answered while ringing) or
    /// the phase the call stays in, and the setup result ('' none).
    package static let transition = """
        local function transition(call, candidates, kind, from, to, frame, max, ended_ttl, over)
          local s = redis.call('HMGET', call, 'caller', 'callee', 'phase', 'blk')
          local caller, callee, phase = s[1], s[2], s[3]
          if not phase or phase == 'e' then return {1} end
          if not ((from == caller and to == callee) or (from == callee and to == caller)) then return {2} end
          if kind == 'answer' and from ~= callee then return {2} end
          if s[4] then
            if from == callee then return {1} end
            if kind ~= 'end' then return {4, ''} end
          end
          if kind == 'end' then
            over()
            redis.call('HSET', call, 'phase', 'e')
            redis.call('PEXPIRE', call, ended_ttl)
            if s[4] then return {4, 'failed'} end
            if phase ~= 'r' then return nil, 'end', '' end
            if from == callee then return nil, 'end', 'rejected' end
            return nil, 'end', 'failed'
          end
          if kind == 'answer' and phase == 'r' then
            over()
            redis.call('HSET', call, 'phase', 'a')
            return nil, 'answer', 'answered'
          end
          if kind == 'ice' and phase == 'r' and from == caller then
            -- Held with the offer for a callee that has not got it yet.
            if redis.call('LLEN', candidates) < tonumber(max) then
              redis.call('RPUSH', candidates, frame)
              redis.call('PEXPIRE', candidates, redis.call('PTTL', call))
            end
          end
          return nil, phase, ''
        end

        """

    package enum ConfirmKey: String, ScriptNames { case call }
    package enum ConfirmArgument: String, ScriptNames {
        /// The confirming user.
        case callee, routePrefix
    }

    /// `call_received`. Returns {1} unknown or ended (or a
    /// `blk` call, which its callee does not know), {2} not the callee, {5} confirmed before or
    /// answered (nothing done), {0, caller, routing, ringing frame}: `rung` set and
    /// `call_ringing` routed to the caller.
    package static let confirm = RedisScript(keys: ConfirmKey.self, arguments: ConfirmArgument.self, RouteArgument.self,
                                             prelude: MessageScripts.prelude + confirmation, """
        local settled, caller, ring = confirm_offer(k_call, a_callee)
        if settled then return settled end
        local where = route(tagged(a_routePrefix, caller), caller, 's', '0', function() return ring end, a_node, a_nodePrefix, a_channelPrefix)
        return {0, caller, where, ring}
        """)

    /// Lua `confirm_offer(call, callee)`: `callee` confirms the call's offer (the single
    /// script's and the cluster's call step, `CallStepScripts.confirm`). Answers a reply to
    /// return as it is ({1} unknown or ended, or a `blk` call; {2} not the callee; {5}
    /// confirmed before or answered), or nil, the caller and its `call_ringing` frame (`rung` set).
    package static let confirmation = """
        local function confirm_offer(call, callee)
          local s = redis.call('HMGET', call, 'caller', 'callee', 'phase', 'rung', 'cid', 'blk')
          if not s[3] or s[3] == 'e' then return {1} end
          if s[2] ~= callee then return {2} end
          if s[6] then return {1} end
          if s[4] == '1' or s[3] ~= 'r' then return {5} end
          redis.call('HSET', call, 'rung', '1')
          return nil, s[1], \(MessageScripts.lua(CallEventFrames.ringingPrefix)) .. s[5] .. \(MessageScripts.lua(CallEventFrames.ringingSuffix))
        end

        """

    package enum HeldKey: String, ScriptNames {
        /// `calls-held:{user}`, `blocked:{user}`, `calls:confirm`.
        case held, blocked, confirmDeadlines
    }

    package enum HeldArgument: String, ScriptNames {
        case user, callPrefix, candidatesPrefix, routePrefix, confirmTimeout
    }

    /// A user came online. Returns the offers of calls ringing for the user, each followed by the
    /// caller's candidates, earliest deadline first — except those already written to the
    /// user's current socket (`at`: an offer that arrived between this login's route and this
    /// script) and those of callers the user blocks (held before the block reached Redis — a
    /// login rewrites the copy first: they become `blk` calls). An offer not confirmed yet gets
    /// a new confirmation deadline: this socket, too, only looks live until its app confirms.
    package static let held = RedisScript(keys: HeldKey.self, arguments: HeldArgument.self, prelude: MessageScripts.prelude, """
        local now = now_ms()
        redis.call('ZREMRANGEBYSCORE', k_held, '-inf', now)
        local here = redis.call('GET', tagged(a_routePrefix, a_user))
        local frames = {}
        for _, id in ipairs(redis.call('ZRANGE', k_held, 0, -1)) do
          local key = tagged(a_callPrefix, id)
          local s = redis.call('HMGET', key, 'caller', 'callee', 'phase', 'offer', 'rung', 'at')
          if s[3] ~= 'r' or s[2] ~= a_user or not s[4] then
            redis.call('ZREM', k_held, id)
          elseif redis.call('SISMEMBER', k_blocked, s[1]) == 1 then
            -- Held before the block reached Redis: from now on a `blk` call.
            redis.call('HSET', key, 'blk', '1')
            redis.call('HDEL', key, 'offer')
            redis.call('ZREM', k_held, id)
            redis.call('DEL', tagged(a_candidatesPrefix, id))
          elseif s[6] ~= here then
            if here then redis.call('HSET', key, 'at', here) end
            frames[#frames + 1] = s[4]
            for _, c in ipairs(redis.call('LRANGE', tagged(a_candidatesPrefix, id), 0, -1)) do frames[#frames + 1] = c end
            if s[5] ~= '1' then redis.call('ZADD', k_confirmDeadlines, now + tonumber(a_confirmTimeout), id) end
          end
        end
        return frames
        """)

    package enum SweepKey: String, ScriptNames {
        /// `calls:deadlines`, `calls:confirm`.
        case deadlines, confirmDeadlines
    }

    package enum SweepArgument: String, ScriptNames {
        /// `lease` ms: an unconfirmed offer is re-scored this far ahead until the push is settled.
        case callPrefix, candidatesPrefix, heldPrefix, routePrefix, eventsPrefix, eventTTL, maxEvents, endedTTL, batch, lease
    }

    /// The sweep, run by every node.
    /// Claims every offer past its confirmation deadline and every call past its ring deadline
    /// — inside one script, so exactly one node gets each. An offer still ringing that no
    /// device confirmed is claimed for a lease (re-scored `lease` ahead: the node settles it
    /// once it pushed the callee, `CallStepScripts.settle`); any other is dropped, as is every
    /// due call (its end happens here). Returns {unconfirmed, ended}: unconfirmed is {callee,
    /// callId as spelt, callId, the claim's score, …} (the offer stays held); ended
    /// is {frame, caller, routing, callee, routing} per call it ended ({frame, caller,
    /// routing} for a `blk` call).
    package static let sweep = RedisScript(keys: SweepKey.self, arguments: SweepArgument.self, RouteArgument.self,
                                           prelude: MessageScripts.prelude + helpers, """
        local now = now_ms()
        local unconfirmed, ended = {}, {}
        for _, id in ipairs(redis.call('ZRANGEBYSCORE', k_confirmDeadlines, '-inf', now, 'LIMIT', 0, tonumber(a_batch))) do
          local s = redis.call('HMGET', tagged(a_callPrefix, id), 'callee', 'phase', 'rung', 'cid', 'blk')
          if s[2] == 'r' and s[3] ~= '1' and not s[5] then
            local at = string.format('%.0f', now + tonumber(a_lease))
            redis.call('ZADD', k_confirmDeadlines, at, id)
            for _, v in ipairs({s[1], s[4], id, at}) do unconfirmed[#unconfirmed + 1] = v end
          else
            redis.call('ZREM', k_confirmDeadlines, id)
          end
        end
        for _, id in ipairs(redis.call('ZRANGEBYSCORE', k_deadlines, '-inf', now, 'LIMIT', 0, tonumber(a_batch))) do
          redis.call('ZREM', k_deadlines, id)
          local key = tagged(a_callPrefix, id)
          local s = redis.call('HMGET', key, 'caller', 'callee', 'phase', 'cid', 'blk')
          if s[3] == 'r' then
            unhold(key, id, k_deadlines, tagged(a_heldPrefix, s[2]), tagged(a_candidatesPrefix, id))
            redis.call('HSET', key, 'phase', 'e')
            redis.call('PEXPIRE', key, a_endedTTL)
            local frame = \(MessageScripts.lua(CallEventFrames.timeoutPrefix)) .. s[4] .. \(MessageScripts.lua(CallEventFrames.timeoutSuffix))
            local entry = {frame}
            -- A `blk` call's callee never knew of it.
            for _, user in ipairs(s[5] and {s[1]} or {s[1], s[2]}) do
              entry[#entry + 1] = user
              entry[#entry + 1] = route_event(user, frame, a_routePrefix, a_eventsPrefix, a_node, a_nodePrefix, a_channelPrefix, a_eventTTL, a_maxEvents)
            end
            ended[#ended + 1] = entry
          end
        end
        return {unconfirmed, ended}
        """)
}
