import WhisperStorage

/// The owed wake-ups behind `RedisWakeUpClaims` (docs/operations.md "Push"):
///
///     push-owed:{wakes-<b>}  → sorted set of users owed a wake-up, scored by when (ms) it is due again
///     push-tries:{wakes-<b>} → hash user → failed sends in a row (the backoff's exponent)
///
/// A user's entry lives in bucket b of `RedisKeys.pushOwedBuckets` (by its hash slot); a
/// bucket's pair shares one hash tag, so every script here is one slot's step on a Redis
/// Cluster too.
/// A caller holds an entry by its score (the ticket): `settle` changes nothing once someone
/// wrote the entry anew. The user's own keys (`recheck`) are a step of the user's slot.
package enum WakeUpScripts {
    package enum OwedKey: String, ScriptNames { case owed }
    package enum OweArgument: String, ScriptNames { case user, delay }

    /// The user is owed a wake-up, due `delay` ms from now. Returns the score (the ticket).
    package static let owe = RedisScript(keys: OwedKey.self, arguments: OweArgument.self, prelude: MessageScripts.prelude, """
        local at = now_ms() + tonumber(a_delay)
        redis.call('ZADD', k_owed, string.format('%d', at), a_user)
        return at
        """)

    package enum SettleKey: String, ScriptNames { case owed, tries }
    package enum SettleArgument: String, ScriptNames {
        /// `retry` '1': the send was given up, due again after the backoff; '0': the entry goes.
        case user, ticket, retry, window, maxDelay
    }

    /// After a send, unless the entry was written anew since (its score is not the ticket).
    /// Returns 1 when it changed the entry.
    package static let settle = RedisScript(keys: SettleKey.self, arguments: SettleArgument.self, prelude: MessageScripts.prelude, """
        if redis.call('ZSCORE', k_owed, a_user) ~= a_ticket then return 0 end
        if a_retry == '1' then
          local failures = redis.call('HINCRBY', k_tries, a_user, 1)
          local delay = math.min(tonumber(a_maxDelay), tonumber(a_window) * 2 ^ math.min(failures - 1, 30))
          redis.call('ZADD', k_owed, string.format('%d', now_ms() + delay), a_user)
        else
          redis.call('ZREM', k_owed, a_user)
          redis.call('HDEL', k_tries, a_user)
        end
        return 1
        """)

    package enum TakeArgument: String, ScriptNames { case batch, lease }

    /// Claims the due entries: each is re-scored `lease` ms ahead, so no other node takes it
    /// meanwhile, and one whose sender dies comes back after the lease. Returns {ticket, users…}.
    package static let takeDue = RedisScript(keys: OwedKey.self, arguments: TakeArgument.self, prelude: MessageScripts.prelude, """
        local now = now_ms()
        local users = redis.call('ZRANGEBYSCORE', k_owed, '-inf', now, 'LIMIT', 0, tonumber(a_batch))
        local until_ = string.format('%d', now + tonumber(a_lease))
        for _, user in ipairs(users) do redis.call('ZADD', k_owed, 'XX', until_, user) end
        table.insert(users, 1, until_)
        return users
        """)

    package enum RecheckKey: String, ScriptNames {
        /// `route:{user}`, `pending:{user}`, `events:{user}`, `push-wake:{user}`.
        case route, pending, events, pushWake
    }
    package enum RecheckArgument: String, ScriptNames { case window }

    /// Whether a due wake-up is still owed: 'online' (a socket's route; a dead node's routes
    /// are deleted by the presence sweep), 'nothing' (no message and no event waits),
    /// 'coalesced' (the window is claimed: a wake-up went out meanwhile), else 'owed', the
    /// window claimed for this send.
    package static let recheck = RedisScript(keys: RecheckKey.self, arguments: RecheckArgument.self, """
        if redis.call('EXISTS', k_route) == 1 then return 'online' end
        if redis.call('XLEN', k_pending) == 0 and redis.call('EXISTS', k_events) == 0 then return 'nothing' end
        if not redis.call('SET', k_pushWake, '1', 'NX', 'PX', a_window) then return 'coalesced' end
        return 'owed'
        """)
}
