import WhisperProtocol
import WhisperStorage

/// The call scripts as steps of one slot each, for a Redis Cluster (issue #27), where a call
/// (`call:{id}`, `call-ice:{id}`), its caller's and its callee's keys (`route:`, `events:`,
/// `calls-held:`, `blocked:`) and the two deadline sets live on different shards. A standalone
/// Redis runs each operation as one script (`CallScripts`); the outcomes are the same.
///
/// **The call hash is the coordinator.** Every transition is one step on it (`open`, `signal`,
/// `confirm`, `visit`, guarded by its phase r → a → e and `EXISTS`, so a repeat changes
/// nothing); the parties' keys are read or written in steps of their own. A transition whose
/// frame must not be lost — an answer, a hangup, a timeout — writes that frame into the hash
/// as its *outbox* (`ot` the users, `of` the frame, `ok` its kind, `oa` when, `on` a sequence
/// number) in the same step; the node then delivers it (the party's step, then `SPUBLISH` to
/// its node) and clears the outbox (`clear`, only if `on` is still its number).
///
/// **The deadline sets stay singletons**, each a one-key step of its own (`schedule`,
/// `claim`, `settle`; `calls:deadlines` and `calls:confirm` hash to one slot each): calls are
/// rare next to messages (one write per transition on one shard), while a set per slot, as
/// the pending counters have, would make every node's sweep — every 500 ms — read 16,384 keys.
/// On a cluster `calls:deadlines` holds *when the sweep must look at a call next*; the hash
/// holds the truth (`dl` its ring deadline, the outbox). It is written before the call's step
/// (at the offer: the ring deadline; before an answer or hangup: at most `grace` from now), so
/// a node that dies after the call's step always leaves the call findable: the sweep claims
/// it (re-scored a lease ahead, so exactly one node at a time has it), and the call's `visit`
/// step ends it if it rang out, re-delivers an outbox older than `grace` (the live node had its
/// chance), reschedules a ringing call to its deadline, or lets it go (`settle` drops the
/// entry only if nobody re-scored it since the claim — `schedule` always changes the score).
/// So a call never rings forever and an answer, hangup or timeout is never lost; a node dying
/// between delivering a frame and clearing the outbox makes that frame arrive twice.
///
/// An offer is held (`calls-held:{callee}`, the callee's step, which also checks the block)
/// before the call's step writes it; a login finding an id whose hash is not written yet
/// leaves it (it expires by its score). Held entries of calls no longer ringing are dropped
/// by the next login, not by the answer or hangup (that would be another party's step).
/// `call_ringing` goes through the outbox like an answer (the sweep's visit after delivering
/// it looks at the call again, which is still ringing). The confirmation push is claimed for
/// a lease too (`calls:confirm`, settled once the push is handed over), in both modes.
package enum CallStepScripts {
    /// `outbox(key, users, frame, kind, now)`: writes the call's outbox, answers its number.
    private static let outbox = """
        local function outbox(key, users, frame, kind, now)
          local n = redis.call('HINCRBY', key, 'on', 1)
          redis.call('HSET', key, 'ot', users, 'of', frame, 'ok', kind, 'oa', now)
          return n
        end

        """

    // MARK: The deadline sets (one key each)

    package enum ScheduleKey: String, ScriptNames {
        /// `calls:deadlines` or `calls:confirm`.
        case deadlines
    }

    package enum ScheduleArgument: String, ScriptNames {
        /// `mode`: `add` (only if absent), `sooner` (at most `delay` from now, and always a new
        /// score, so a `settle` of an older claim leaves it), `set`.
        case callId, delay, mode
    }

    /// Returns the score now held.
    package static let schedule = RedisScript(keys: ScheduleKey.self, arguments: ScheduleArgument.self,
                                              prelude: MessageScripts.prelude, """
        local at = now_ms() + tonumber(a_delay)
        local s = redis.call('ZSCORE', k_deadlines, a_callId)
        if s and a_mode == 'add' then return s end
        if s and a_mode == 'sooner' and tonumber(s) <= at then at = tonumber(s) - 1 end
        redis.call('ZADD', k_deadlines, at, a_callId)
        return string.format('%.0f', at)
        """)

    package enum ClaimKey: String, ScriptNames { case deadlines }

    package enum ClaimArgument: String, ScriptNames {
        /// `lease` ms: a claimed entry is re-scored this far ahead ('0': removed).
        case lease, batch
    }

    /// The entries due, each claimed by exactly one node. Returns {id, score it now holds, …}.
    package static let claim = RedisScript(keys: ClaimKey.self, arguments: ClaimArgument.self,
                                           prelude: MessageScripts.prelude, """
        local now = now_ms()
        local claimed = {}
        for _, id in ipairs(redis.call('ZRANGEBYSCORE', k_deadlines, '-inf', now, 'LIMIT', 0, tonumber(a_batch))) do
          local at = now + tonumber(a_lease)
          if a_lease == '0' then redis.call('ZREM', k_deadlines, id) else redis.call('ZADD', k_deadlines, at, id) end
          claimed[#claimed + 1] = id
          claimed[#claimed + 1] = string.format('%.0f', at)
        end
        return claimed
        """)

    package enum SettleKey: String, ScriptNames { case deadlines }

    package enum SettleArgument: String, ScriptNames {
        /// `next`: the new score, or '' to drop the entry.
        case callId, claimed, next
    }

    /// A claimed entry done: dropped or rescheduled — only while it holds the claim's score.
    package static let settle = RedisScript(keys: SettleKey.self, arguments: SettleArgument.self, """
        local s = redis.call('ZSCORE', k_deadlines, a_callId)
        if not s or tonumber(s) ~= tonumber(a_claimed) then return 0 end
        if a_next == '' then redis.call('ZREM', k_deadlines, a_callId) else redis.call('ZADD', k_deadlines, a_next, a_callId) end
        return 1
        """)

    // MARK: An offer

    package enum RingKey: String, ScriptNames {
        /// `calls-held:{callee}`, `blocked:{callee}`, `route:{callee}`.
        case held, blocked, route
    }

    package enum RingArgument: String, ScriptNames { case caller, callId, ringTimeout, ringingTTL }

    /// The callee's step of an offer. Returns {1} the callee blocked the caller (nothing held),
    /// or {0, route or ''}: the offer is held.
    package static let ring = RedisScript(keys: RingKey.self, arguments: RingArgument.self, prelude: MessageScripts.prelude, """
        if redis.call('SISMEMBER', k_blocked, a_caller) == 1 then return {1} end
        local now = now_ms()
        redis.call('ZREMRANGEBYSCORE', k_held, '-inf', now)
        redis.call('ZADD', k_held, now + tonumber(a_ringTimeout), a_callId)
        redis.call('PEXPIRE', k_held, a_ringingTTL)
        return {0, redis.call('GET', k_route) or ''}
        """)

    package enum OpenKey: String, ScriptNames { case call }

    package enum OpenArgument: String, ScriptNames {
        /// `blocked` '1': a `blk` call; `at`: the route the offer goes to ('' none).
        case caller, callee, spelt, offer, ringTimeout, ringingTTL, blocked, at
    }

    /// The call's step of an offer. Returns {2} callId in use, {4} a `blk` call, {0} ringing.
    package static let open = RedisScript(keys: OpenKey.self, arguments: OpenArgument.self, prelude: MessageScripts.prelude, """
        if redis.call('EXISTS', k_call) == 1 then return {2} end
        local deadline = now_ms() + tonumber(a_ringTimeout)
        if a_blocked == '1' then
          redis.call('HSET', k_call, 'caller', a_caller, 'callee', a_callee, 'cid', a_spelt, 'phase', 'r', 'blk', '1', 'dl', deadline)
          redis.call('PEXPIRE', k_call, a_ringingTTL)
          return {4}
        end
        redis.call('HSET', k_call, 'caller', a_caller, 'callee', a_callee, 'cid', a_spelt, 'phase', 'r',
                   'offer', a_offer, 'rung', '0', 'dl', deadline)
        if a_at ~= '' then redis.call('HSET', k_call, 'at', a_at) end
        redis.call('PEXPIRE', k_call, a_ringingTTL)
        return {0}
        """)

    // MARK: Signals

    package enum SignalKey: String, ScriptNames {
        /// `call:{id}`, `call-ice:{id}`.
        case call, candidates
    }

    package enum SignalArgument: String, ScriptNames {
        case kind, from, to, frame, answeredTTL, endedTTL, maxCandidates
    }

    /// The call's step of `call_answer`, `call_ice_candidate`, `call_end` (the CALL rate limit
    /// was charged before). Returns {1} unknown or ended (or a `blk` call's callee), {2} not a
    /// party, {4, setup or ''} a `blk` call's caller (routed nowhere), {0, setup or '', outbox
    /// number (0: none)}: the frame goes to `to`.
    package static let signal = RedisScript(keys: SignalKey.self, arguments: SignalArgument.self,
                                            prelude: MessageScripts.prelude + CallScripts.transition + outbox, """
        local refused, step, setup = transition(k_call, k_candidates, a_kind, a_from, a_to, a_frame, a_maxCandidates, a_endedTTL, function()
          redis.call('HDEL', k_call, 'offer')
          redis.call('DEL', k_candidates)
        end)
        if refused then return refused end
        local n = 0
        if step == 'end' then n = outbox(k_call, a_to, a_frame, 'e', now_ms()) end
        if step == 'answer' then n = outbox(k_call, a_to, a_frame, 's', now_ms()) end
        -- An answered call lives on while it signals (ICE restarts).
        if step == 'answer' or step == 'a' then redis.call('PEXPIRE', k_call, a_answeredTTL) end
        return {0, setup, n}
        """)

    package enum ClearKey: String, ScriptNames { case call }
    package enum ClearArgument: String, ScriptNames { case number }

    /// The outbox delivered: cleared, unless a later transition wrote another.
    package static let clear = RedisScript(keys: ClearKey.self, arguments: ClearArgument.self, """
        if redis.call('HGET', k_call, 'on') == a_number then redis.call('HDEL', k_call, 'ot', 'of', 'ok', 'oa') end
        return 0
        """)

    package enum ConfirmKey: String, ScriptNames { case call }
    package enum ConfirmArgument: String, ScriptNames { case callee }

    /// `call_received`, the call's step. Returns {1} unknown or ended (or a `blk` call), {2} not
    /// the callee, {5} confirmed before or answered, {0, caller, ringing frame, outbox number}:
    /// `rung` set and `call_ringing` in the outbox, so the sweep sends it if this node dies
    /// before it does.
    package static let confirm = RedisScript(keys: ConfirmKey.self, arguments: ConfirmArgument.self,
                                             prelude: MessageScripts.prelude + CallScripts.confirmation + outbox, """
        local settled, caller, ring = confirm_offer(k_call, a_callee)
        if settled then return settled end
        return {0, caller, ring, outbox(k_call, caller, ring, 's', now_ms())}
        """)

    // MARK: A login

    package enum HeldKey: String, ScriptNames {
        /// `calls-held:{user}`, `route:{user}`.
        case held, route
    }

    /// The user's step: {its route or '', the ids of calls held for it, earliest deadline first}.
    package static let held = RedisScript(keys: HeldKey.self, prelude: MessageScripts.prelude, """
        redis.call('ZREMRANGEBYSCORE', k_held, '-inf', now_ms())
        local found = {redis.call('GET', k_route) or ''}
        for _, id in ipairs(redis.call('ZRANGE', k_held, 0, -1)) do found[#found + 1] = id end
        return found
        """)

    package enum OfferKey: String, ScriptNames { case call, candidates }
    package enum OfferArgument: String, ScriptNames { case user, here }

    /// The call's step of a login (reads only). Returns {0} leave it (not written yet, or its
    /// offer already went to this socket: `at`), {1} drop it (not ringing for the user), or
    /// {2, caller, rung, offer, candidates…}.
    package static let offer = RedisScript(keys: OfferKey.self, arguments: OfferArgument.self, """
        local s = redis.call('HMGET', k_call, 'caller', 'callee', 'phase', 'offer', 'rung', 'at')
        if not s[3] then return {0} end
        if s[3] ~= 'r' or s[2] ~= a_user or not s[4] then return {1} end
        if a_here ~= '' and s[6] == a_here then return {0} end
        local found = {2, s[1], s[5] or '0', s[4]}
        for _, c in ipairs(redis.call('LRANGE', k_candidates, 0, -1)) do found[#found + 1] = c end
        return found
        """)

    package enum SortKey: String, ScriptNames {
        /// `calls-held:{user}`, `blocked:{user}`.
        case held, blocked
    }

    /// The user's step after the calls' steps: ARGV are {callId, caller or '' (drop), …}.
    /// Drops those and the calls of callers the user blocks (held before the block reached
    /// Redis); returns the ids of the blocked ones.
    package static let sort = RedisScript(keys: SortKey.self, """
        local blocked = {}
        for i = a_rest, #ARGV, 2 do
          local id, caller = ARGV[i], ARGV[i + 1]
          local refused = caller ~= '' and redis.call('SISMEMBER', k_blocked, caller) == 1
          if caller == '' or refused then redis.call('ZREM', k_held, id) end
          if refused then blocked[#blocked + 1] = id end
        end
        return blocked
        """)

    package enum TakeKey: String, ScriptNames { case call, candidates }
    package enum TakeArgument: String, ScriptNames {
        /// `blocked` '1': from now on a `blk` call; else the offer went to `here`.
        case blocked, here
    }

    /// The call's step once its offer is sent (or refused).
    package static let take = RedisScript(keys: TakeKey.self, arguments: TakeArgument.self, """
        if redis.call('HGET', k_call, 'phase') ~= 'r' then return 0 end
        if a_blocked == '1' then
          redis.call('HSET', k_call, 'blk', '1')
          redis.call('HDEL', k_call, 'offer')
          redis.call('DEL', k_candidates)
        elseif a_here ~= '' then
          redis.call('HSET', k_call, 'at', a_here)
        end
        return 0
        """)

    // MARK: The sweep

    package enum VisitKey: String, ScriptNames { case call, candidates }
    package enum VisitArgument: String, ScriptNames {
        /// `grace` ms: how long the node that wrote an outbox has to deliver it.
        case endedTTL, grace
    }

    /// The call's step of a sweep that claimed it. Returns {0} done with it, {1, when} look
    /// again then, {2, outbox number, frame, kind, users} deliver an outbox a node left, or
    /// {3, …} the same for a call this step ended because it rang out (users: the caller, and
    /// the callee unless it is a `blk` call, space-separated).
    package static let visit = RedisScript(keys: VisitKey.self, arguments: VisitArgument.self,
                                           prelude: MessageScripts.prelude + outbox, """
        local now = now_ms()
        local s = redis.call('HMGET', k_call, 'caller', 'callee', 'phase', 'blk', 'dl', 'ot', 'of', 'ok', 'oa', 'on', 'cid')
        if not s[3] then return {0} end
        if s[6] then
          local due = tonumber(s[9]) + tonumber(a_grace)
          if now < due then return {1, due} end
          return {2, tonumber(s[10]), s[7], s[8], s[6]}
        end
        if s[3] ~= 'r' then return {0} end
        local deadline = tonumber(s[5] or '0')
        if now < deadline then return {1, deadline} end
        redis.call('HDEL', k_call, 'offer')
        redis.call('DEL', k_candidates)
        redis.call('HSET', k_call, 'phase', 'e')
        redis.call('PEXPIRE', k_call, a_endedTTL)
        local frame = \(MessageScripts.lua(CallEventFrames.timeoutPrefix)) .. s[11] .. \(MessageScripts.lua(CallEventFrames.timeoutSuffix))
        -- A `blk` call's callee never knew of it.
        local users = s[4] and s[1] or (s[1] .. ' ' .. s[2])
        return {3, outbox(k_call, users, frame, 'e', now), frame, 'e', users}
        """)
}
