import WhisperStorage

/// The message scripts as steps of one slot each, for a Redis Cluster (issue #27), where the
/// sender's keys, the recipient's keys and a rate-limited address live on different shards.
/// A standalone Redis runs the same work as one script (`MessageScripts.accept`, `.receipt`);
/// both are built from the same Lua functions (`MessageScripts.prelude`).
///
/// An accept is, in one round trip, the sender's step (its SEND charge and its `peers:`) and
/// one step per other rate-limited subject (the client's address), then the recipient's step
/// (block check, idempotency record, append, route). A receipt is the recipient's step (the
/// record and the queue) then the sender's (`message_delivered`, routed or kept). Every step is
/// safe to repeat, so a node that dies — or a link that drops — between two steps loses
/// nothing and delivers nothing twice: the client retries the same envelope, whose record
/// makes the recipient's step a duplicate once it ran, and whose per-subject group mark makes
/// the charge of a group message's envelopes once per subject. At worst a direct message's
/// retry is charged twice (as it is on a standalone Redis when the reply is lost), and a
/// receipt's retry tells its sender twice.
///
/// Routing in steps: the recipient's step answers the route it read (`node:loop:connection`)
/// and the caller publishes to another node (`SPUBLISH deliver:<node>`, a channel in that
/// node's slot); a publish nobody received counts as offline, as it does inside the script.
package enum MessageStepScripts {
    package enum SenderKey: String, ScriptNames {
        /// `group-charge:{from}:groupId:id` (a group message; any key of the sender's slot
        /// otherwise), `peers:{from}`.
        case mark, peers
    }

    package enum SenderArgument: String, ScriptNames {
        /// The rate-limit hit's name; `marked` '1' for a group message.
        case hit, to, peerTTL, markTTL, marked
    }

    /// The sender's step: after the names, KEYS are its SEND logs and ARGV their count/window
    /// pairs. Returns {3, wait ms} rate limited, else {0}.
    package static let sender = RedisScript(keys: SenderKey.self, arguments: SenderArgument.self,
                                            prelude: MessageScripts.prelude + RedisRateLimitStore.lua + chargeOnce, """
        local now = now_ms()
        local wait = charge_once(k_mark, a_marked, a_markTTL, a_hit, now)
        if wait > 0 then return {3, wait} end
        refresh_peer(k_peers, a_to, now, tonumber(a_peerTTL))
        return {0}
        """)

    package enum AddressKey: String, ScriptNames {
        /// `group-charge:{ip:<address>}:groupId:id`, or any key of the subject's slot.
        case mark
    }

    package enum AddressArgument: String, ScriptNames { case hit, markTTL, marked }

    /// Another subject's step (the client's address): after the names, its SEND logs and their
    /// count/window pairs. Returns {3, wait ms} rate limited, else {0}.
    package static let address = RedisScript(keys: AddressKey.self, arguments: AddressArgument.self,
                                             prelude: MessageScripts.prelude + RedisRateLimitStore.lua + chargeOnce, """
        local wait = charge_once(k_mark, a_marked, a_markTTL, a_hit, now_ms())
        if wait > 0 then return {3, wait} end
        return {0}
        """)

    /// Lua `charge_once(mark, marked, ttl, hit, now)`: charges the logs from `k_rest` (pairs
    /// from `a_rest`) — once per group message when `marked` is '1' (the mark remembers it).
    private static let chargeOnce = """
        local function charge_once(mark, marked, ttl, hit, now)
          if marked == '1' and redis.call('EXISTS', mark) == 1 then return 0 end
          local wait = rate_limit(KEYS, k_rest, hit, ARGV, a_rest, now)
          if wait == 0 and marked == '1' then redis.call('SET', mark, '1', 'PX', ttl) end
          return wait
        end

        """

    package enum RecipientKey: String, ScriptNames {
        /// `msg:{to}:from:id`, `pending:{to}`, `peers:{to}`, `pending-count:{<slot tag>}`,
        /// `pending-index:{<slot tag>}`, `blocked:{to}`, `route:{to}`, `push-wake:{to}`.
        case record, pending, peers, pendingCount, pendingIndex, blocked, route, pushWake
    }

    package enum RecipientArgument: String, ScriptNames {
        case to, from, payload, pendingTTL, peerTTL, maxPending, spelt
        /// Push coalescing window ms ('0': no push).
        case wakeWindow
    }

    /// The recipient's step. Returns {5} dropped (blocked), {1} duplicate, {2} queue full, or
    /// {0, entryId, route or 'offline', woke} (woke: this call claimed the push window).
    package static let recipient = RedisScript(keys: RecipientKey.self, arguments: RecipientArgument.self,
                                               prelude: MessageScripts.prelude, """
        local now = now_ms()
        local stored = store_message(k_blocked, a_from, k_record, k_pending, a_maxPending, a_payload, tonumber(a_pendingTTL),
          a_spelt, k_pendingCount, k_pendingIndex, a_to, k_peers, tonumber(a_peerTTL), now)
        if type(stored) == 'table' then return stored end
        local route = redis.call('GET', k_route)
        if route then return {0, stored, route, 0} end
        return {0, stored, 'offline', claim_wake(k_pushWake, a_wakeWindow)}
        """)

    package enum ReceiptKey: String, ScriptNames {
        /// `msg:{recipient}:sender:id`, `pending:{recipient}`, `pending-count:{<slot tag>}`.
        case record, pending, pendingCount
    }

    package enum ReceiptArgument: String, ScriptNames { case status }

    /// The recipient's step of a receipt: a `delivered` one takes the message out of the queue
    /// (a repeat finds it gone). Returns {0} unknown, or {1, removed, messageId as the sender
    /// spelt it}; the sender is told by the caller's next step, for a repeated receipt again
    /// (whose first one may have been cut off before that step).
    package static let receipt = RedisScript(keys: ReceiptKey.self, arguments: ReceiptArgument.self, """
        local v = redis.call('GET', k_record)
        if not v then return {0} end
        local entry, spelt = string.match(v, '^(%S+) (%S+)')
        local removed = 0
        if a_status == 'delivered' then
          removed = redis.call('XDEL', k_pending, entry)
          if removed > 0 then redis.call('DECR', k_pendingCount) end
        end
        return {1, removed, spelt}
        """)

    package enum NoticeKey: String, ScriptNames {
        /// `route:{user}`, `events:{user}`.
        case route, events
    }

    package enum NoticeArgument: String, ScriptNames { case frame, eventTTL, maxEvents }

    /// An event for one user (a receipt's `message_delivered`): answers the route, or keeps the
    /// frame in the user's event queue and answers 'offline'.
    package static let notice = RedisScript(keys: NoticeKey.self, arguments: NoticeArgument.self,
                                            prelude: MessageScripts.prelude, """
        local route = redis.call('GET', k_route)
        if route then return route end
        keep(k_events, a_frame, a_eventTTL, a_maxEvents)
        return 'offline'
        """)

    package enum TypingSenderKey: String, ScriptNames {
        /// `peers:{from}`.
        case peers
    }

    package enum TypingSenderArgument: String, ScriptNames { case hit, to, peerWindow }

    /// A typing signal's sender step: after the names, its TYPING logs and their count/window
    /// pairs. Returns {3, wait ms} rate limited, {1} not a direct peer, else {0}.
    package static let typingSender = RedisScript(keys: TypingSenderKey.self, arguments: TypingSenderArgument.self,
                                                  prelude: MessageScripts.prelude + RedisRateLimitStore.lua, """
        local now = now_ms()
        local wait = rate_limit(KEYS, k_rest, a_hit, ARGV, a_rest, now)
        if wait > 0 then return {3, wait} end
        local seen = redis.call('ZSCORE', k_peers, a_to)
        if not seen or tonumber(seen) < now - tonumber(a_peerWindow) then return {1} end
        return {0}
        """)

    package enum TypingRecipientKey: String, ScriptNames {
        /// `blocked:{to}`, `typing:{to}:from`, `route:{to}`.
        case blocked, typing, route
    }

    package enum TypingRecipientArgument: String, ScriptNames { case from, minInterval }

    /// A typing signal's recipient step. Returns {4} `to` blocked `from`, {2} throttled (a
    /// signal of the pair passed within the interval), else {0, route or 'offline'}.
    package static let typingRecipient = RedisScript(keys: TypingRecipientKey.self, arguments: TypingRecipientArgument.self, """
        if redis.call('SISMEMBER', k_blocked, a_from) == 1 then return {4} end
        if not redis.call('SET', k_typing, '1', 'PX', a_minInterval, 'NX') then return {2} end
        return {0, redis.call('GET', k_route) or 'offline'}
        """)
}
