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
package enum MessageScripts {
    /// Lua prelude: `now_ms()`, `route(...)`, `keep(...)` and `trim(...)` (also `CallScripts`' and
    /// `PresenceScripts`').
    package static let prelude = """
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
          if redis.call('PUBLISH', tagged(channel_prefix, node), text) == 0 then return 'offline' end
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
        -- A pair that talks keeps its score (and the set its TTL) refreshed at most once per
        -- 1/1000 of the window (43 min of 30 days): a read per message instead of two writes
        -- (fewer commands, and a smaller AOF). Every write is a ZADD with its PEXPIRE, so the
        -- set lives at least the window past its newest score.
        local function refresh_peer(key, peer, now, peer_ttl)
          local seen = redis.call('ZSCORE', key, peer)
          if not seen or tonumber(seen) < now - math.floor(peer_ttl / 1000) then
            -- Old peers are pruned when a new one joins (rare next to messages).
            if not seen then redis.call('ZREMRANGEBYSCORE', key, '-inf', now - peer_ttl) end
            redis.call('ZADD', key, now, peer)
            redis.call('PEXPIRE', key, peer_ttl)
          end
        end
        -- The recipient's half of an accept (all keys of the recipient's slot): {5} the
        -- recipient blocked the sender, {1} duplicate, {2} queue full, or the new entry's id.
        -- Expired entries are trimmed by fetch and by the sweeper, not here: the cap may
        -- count a few of them, which only makes it stricter.
        -- Positional, not a table: it runs for every message.
        local function store_message(blocked, from, record, pending, max, payload, ttl, spelt, count, index, to,
                                     peers, peer_ttl, now)
          if redis.call('SISMEMBER', blocked, from) == 1 then return {5} end
          if redis.call('EXISTS', record) == 1 then return {1} end
          if redis.call('XLEN', pending) >= tonumber(max) then return {2} end
          local id = redis.call('XADD', pending, '*', 'm', payload)
          redis.call('PEXPIRE', pending, ttl + 3600000)
          redis.call('SET', record, id .. ' ' .. spelt, 'PX', ttl)
          redis.call('INCR', count)
          redis.call('ZADD', index, now, to)
          refresh_peer(peers, from, now, peer_ttl)
          return id
        end
        -- Claims the recipient's push window (`SET NX PX`, as `RedisWakeUpClaims` does): 1 when
        -- this call claimed it, so the caller sends the wake-up.
        local function claim_wake(key, window)
          if window ~= '0' and redis.call('SET', key, '1', 'NX', 'PX', window) then return 1 end
          return 0
        end

        """

    package enum AcceptKey: String, ScriptNames {
        /// `msg:{to}:from:id`, `pending:{to}`, `route:{to}`, `peers:{from}`, `peers:{to}`.
        case record, pending, route, senderPeers, recipientPeers
        case pendingCount, pendingIndex
        /// `push-wake:{to}`, `blocked:{to}`.
        case pushWake, blocked
    }

    package enum AcceptArgument: String, ScriptNames {
        case to, from, payload, pendingTTL, peerTTL, maxPending, receivedAtMicros
        /// The rate-limit hit's name.
        case hit
        /// The group epoch the membership was checked under ('' for a direct message).
        case epoch
        /// Push coalescing window ms ('0': no push).
        case wakeWindow
        /// The messageId as the sender spelt it.
        case spelt
    }

    /// After the names: KEYS `group-epoch:{groupId}` and `group-charge:{from}:groupId:id` for a
    /// group message, then the SEND rate-limit logs; ARGV their count/window pairs.
    /// Returns {4} group membership changed, {3, wait ms} rate limited, {5} dropped (the
    /// recipient blocked the sender), {1} duplicate, {2} queue full, {0, entryId, routing, woke}:
    /// woke = 1 when the recipient is offline and this call claimed its push window (`SET NX
    /// PX`, as `RedisWakeUpClaims` does), so the caller sends the wake-up. The epoch is checked
    /// first: a stale check charges nothing (docs/protocol.md "Groups"). A group message is
    /// charged once: the first of its envelopes to pass the limit marks the group-charge key,
    /// and the others skip the limit (contract §15).
    package static let accept = RedisScript(keys: AcceptKey.self, arguments: AcceptArgument.self, RouteArgument.self,
                                            prelude: prelude + RedisRateLimitStore.lua, """
        local ttl = tonumber(a_pendingTTL)
        local now = now_ms()
        local first_limit, group_charge = k_rest, nil
        if a_epoch ~= '' then
          if (redis.call('GET', KEYS[k_rest]) or '\(GroupScripts.noEpoch)') ~= a_epoch then return {4} end
          first_limit, group_charge = k_rest + 2, KEYS[k_rest + 1]
        end
        if not group_charge or redis.call('EXISTS', group_charge) == 0 then
          local wait = rate_limit(KEYS, first_limit, a_hit, ARGV, a_rest, now)
          if wait > 0 then return {3, wait} end
          if group_charge then redis.call('SET', group_charge, '1', 'PX', ttl) end
        end
        local stored = store_message(k_blocked, a_from, k_record, k_pending, a_maxPending, a_payload, ttl, a_spelt,
          k_pendingCount, k_pendingIndex, a_to, k_recipientPeers, tonumber(a_peerTTL), now)
        if type(stored) == 'table' then return stored end
        refresh_peer(k_senderPeers, a_to, now, tonumber(a_peerTTL))
        local frame = function() return \(lua(MessageFrames.messageReceivedPrefix)) .. a_payload .. \(lua(MessageFrames.messageReceivedSuffix)) end
        local where = route(k_route, a_to, 'm', a_receivedAtMicros, frame, a_node, a_nodePrefix, a_channelPrefix)
        local woke = 0
        if where == 'offline' then woke = claim_wake(k_pushWake, a_wakeWindow) end
        return {0, stored, where, woke}
        """)

    /// A Lua string literal of `text`, for the frame envelopes the scripts splice.
    package static func lua(_ text: String) -> String {
        var literal = "'"
        for character in text {
            if character == "\\" || character == "'" { literal.append("\\") }
            literal.append(character)
        }
        return literal + "'"
    }

    package enum FetchKey: String, ScriptNames { case pending, pendingCount }
    package enum FetchArgument: String, ScriptNames {
        /// '-' or '(' .. cursor.
        case start, count, pendingTTL
    }

    /// Returns XRANGE entries.
    package static let fetch = RedisScript(keys: FetchKey.self, arguments: FetchArgument.self, prelude: prelude, """
        trim(k_pending, k_pendingCount, now_ms() - tonumber(a_pendingTTL))
        return redis.call('XRANGE', k_pending, a_start, '+', 'COUNT', a_count)
        """)

    package enum ReceiptKey: String, ScriptNames {
        /// `msg:{recipient}:sender:id`, `pending:{recipient}`, `route:{sender}`, `events:{sender}`.
        case record, pending, senderRoute, senderEvents, pendingCount
        /// `msg:sender:id`: the record of a message accepted before 2026-11-26 (`RedisKeys.legacyMessage`).
        case legacyRecord
    }

    package enum ReceiptArgument: String, ScriptNames {
        case recipient, status
        /// The notification frame before and after its messageId.
        case head, tail
        case eventTTL, maxEvents, sender
        /// The messageId as the receipt spelt it (for a legacy record, which did not keep the
        /// sender's spelling).
        case spelt
    }

    /// Returns {0} unknown, or {1, removed, routing, messageId as the sender spelt it} where
    /// routing 'offline' means the frame was kept in the sender's event queue. A repeated
    /// `delivered` receipt finds the message gone from the queue and tells the sender again: a
    /// client repeats a receipt whose answer it lost, and the first one's notice may have died
    /// with the node before it was written.
    package static let receipt = RedisScript(keys: ReceiptKey.self, arguments: ReceiptArgument.self, RouteArgument.self,
                                             prelude: prelude, """
        local v = redis.call('GET', k_record)
        local entry, spelt
        if v then
          entry, spelt = string.match(v, '^(%S+) (%S+)')
        else
          v = redis.call('GET', k_legacyRecord)
          if not v then return {0} end
          local recipient
          recipient, entry = string.match(v, '^(%S+) (%S+)')
          if recipient ~= a_recipient then return {0} end
          spelt = a_spelt
        end
        local removed = 0
        if a_status == 'delivered' then
          removed = redis.call('XDEL', k_pending, entry)
          if removed > 0 then redis.call('DECR', k_pendingCount) end
        end
        local notification = a_head .. spelt .. a_tail
        local frame = function() return notification end
        local where = route(k_senderRoute, a_sender, 'e', '0', frame, a_node, a_nodePrefix, a_channelPrefix)
        if where == 'offline' then keep(k_senderEvents, notification, a_eventTTL, a_maxEvents) end
        return {1, removed, where, spelt}
        """)

    package enum KeepEventKey: String, ScriptNames { case events }
    package enum KeepEventArgument: String, ScriptNames { case frame, eventTTL, maxEvents }

    package static let keepEvent = RedisScript(keys: KeepEventKey.self, arguments: KeepEventArgument.self, prelude: prelude, """
        keep(k_events, a_frame, a_eventTTL, a_maxEvents)
        return 1
        """)

    package enum SweepKey: String, ScriptNames {
        /// `pending-index`, `pending-count` (a standalone Redis) or a slot's pair (`PendingSlots`).
        case pendingIndex, pendingCount
    }
    package enum SweepArgument: String, ScriptNames { case pendingTTL, pendingPrefix, batch }

    /// The pending-queue sweeper of one slot (`RedisPendingSweep`): drops queues whose newest
    /// message expired; answers the slot's pending count.
    package static let sweep = RedisScript(keys: SweepKey.self, arguments: SweepArgument.self, prelude: prelude, """
        local cutoff = now_ms() - tonumber(a_pendingTTL)
        local users = redis.call('ZRANGEBYSCORE', k_pendingIndex, '-inf', cutoff, 'LIMIT', 0, tonumber(a_batch))
        for _, user in ipairs(users) do
          local key = tagged(a_pendingPrefix, user)
          trim(key, k_pendingCount, cutoff)
          if redis.call('XLEN', key) == 0 then redis.call('DEL', key) end
          redis.call('ZREM', k_pendingIndex, user)
        end
        return tonumber(redis.call('GET', k_pendingCount) or '0')
        """)
}
