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
/// Every script ends its ARGV with the same settings (`AnnounceSetting`), which `announce`
/// reads. Each prefix is a tagged family's (`tagged(prefix, id)` is the key).
package enum PresenceScripts {
    package enum AnnounceSetting: String, ScriptNames {
        /// This node and where `route(...)` publishes, as `RouteArgument`.
        case node, nodePrefix, channelPrefix
        case routePrefix, presencePrefix, peersPrefix
        /// Minimum interval between announcements and the direct-peer window, ms.
        case minInterval, peerWindow, maxPeers
        /// TTL of `presence:{user}`, ms.
        case recordTTL
        case blockedPrefix
    }

    private static let announce = MessageScripts.prelude + """
        local function presence_frame(user, status, now)
          return '{"type":"presence","payload":{"whisperId":"' .. user .. '","status":"' .. status ..
            '","timestamp":' .. string.format('%d', now) .. '}}'
        end
        -- Announces `user`'s status to its direct peers if it is due (see above), else
        -- schedules it in `due`. Answers nil, or {frame, peer, route, …} for the peers whose
        -- sockets are on this node (the caller writes those; others were published).
        local function announce(user, now, grace, due)
          local record = tagged(a_presencePrefix, user)
          local status = redis.call('EXISTS', tagged(a_routePrefix, user)) == 1 and 'online' or 'offline'
          local told = redis.call('HMGET', record, 's', 't')
          if told[1] == status then
            redis.call('ZREM', due, user)
            return nil
          end
          local at = (tonumber(told[2]) or 0) + tonumber(a_minInterval)
          if grace > 0 then at = math.max(at, now + grace) end
          if at > now then
            redis.call('ZADD', due, at, user)
            return nil
          end
          redis.call('ZREM', due, user)
          redis.call('HSET', record, 's', status, 't', now)
          redis.call('PEXPIRE', record, a_recordTTL)
          local text = presence_frame(user, status, now)
          local frame = function() return text end
          local out = {text}
          local peers = redis.call('ZREVRANGEBYSCORE', tagged(a_peersPrefix, user), '+inf', now - tonumber(a_peerWindow),
                                   'LIMIT', 0, tonumber(a_maxPeers))
          local own = tagged(a_blockedPrefix, user)
          local blocks = redis.call('EXISTS', own) == 1
          for _, peer in ipairs(peers) do
            if not (blocks and redis.call('SISMEMBER', own, peer) == 1)
               and redis.call('SISMEMBER', tagged(a_blockedPrefix, peer), user) == 0 then
              local where = route(tagged(a_routePrefix, peer), peer, 's', '0', frame, a_node, a_nodePrefix, a_channelPrefix)
              if where ~= 'offline' and where ~= 'remote' then
                out[#out + 1] = peer
                out[#out + 1] = where
              end
            end
          end
          return out
        end

        """

    package enum OnlineKey: String, ScriptNames {
        /// `route:{user}`, `events:{user}`, `node-users:{this node}`, `presence-due`, `nodes`,
        /// `push-wake:{user}`, `calls-held:{user}`.
        case route, events, nodeUsers, due, nodes, pushWake, held
    }

    package enum OnlineArgument: String, ScriptNames {
        /// The route text of the socket.
        case route, user, nodeUsersPrefix
    }

    /// A socket now holds the user's session. Returns {kept events oldest
    /// first (now forgotten), announcement, 1 when calls are held for the user else 0} — with
    /// none held, the login skips `CallScripts.held` (a call offered from now on finds the route). The node is listed in `nodes` before it holds anyone, so a
    /// node that dies before its first sweep is still found. The user's push coalescing window
    /// ends: the next thing queued after it leaves wakes it again (docs/protocol.md "Push wake-ups").
    package static let online = RedisScript(keys: OnlineKey.self, arguments: OnlineArgument.self, AnnounceSetting.self,
                                            prelude: announce, """
        local now = now_ms()
        redis.call('ZADD', k_nodes, 'NX', now, a_node)
        local old = redis.call('GET', k_route)
        local old_node = old and string.match(old, '^([^:]+):')
        if old_node and old_node ~= a_node then redis.call('SREM', tagged(a_nodeUsersPrefix, old_node), a_user) end
        redis.call('SET', k_route, a_route)
        redis.call('SADD', k_nodeUsers, a_user)
        redis.call('PEXPIRE', tagged(a_presencePrefix, a_user), a_recordTTL)
        redis.call('DEL', k_pushWake)
        local events = redis.call('LRANGE', k_events, 0, -1)
        if #events > 0 then redis.call('DEL', k_events) end
        return {events, announce(a_user, now, 0, k_due) or {}, redis.call('EXISTS', k_held)}
        """)

    package enum OfflineKey: String, ScriptNames {
        /// `route:{user}`, `node-users:{this node}`, `presence-due`.
        case route, nodeUsers, due
    }

    package enum OfflineArgument: String, ScriptNames {
        /// Its route text; the offline grace, ms.
        case route, user, grace
    }

    /// The socket let go of the session.
    /// Deletes the route only if it is still this socket's (a newer login may own it).
    /// Returns the announcement (`{}` when none was made now).
    package static let offline = RedisScript(keys: OfflineKey.self, arguments: OfflineArgument.self, AnnounceSetting.self,
                                             prelude: announce, """
        if redis.call('GET', k_route) ~= a_route then return {} end
        redis.call('DEL', k_route)
        redis.call('SREM', k_nodeUsers, a_user)
        redis.call('PEXPIRE', tagged(a_presencePrefix, a_user), a_recordTTL)
        return announce(a_user, now_ms(), tonumber(a_grace), k_due) or {}
        """)

    package enum SweepKey: String, ScriptNames {
        /// `presence-due`, `nodes`.
        case due, nodes
    }

    package enum SweepArgument: String, ScriptNames {
        case batch, nodeUsersPrefix, nodeTTL
    }

    /// Every node, every `Limits.presenceSweepIntervalMillis`.
    /// Marks this node alive in `nodes`; takes the users of nodes that died (their node key
    /// expired) offline; then makes the announcements that are due, each claimed by the
    /// ZREM of this one atomic step, so exactly one node sends it.
    /// Returns the announcements with peers on this node.
    package static let sweep = RedisScript(keys: SweepKey.self, arguments: SweepArgument.self, AnnounceSetting.self,
                                           prelude: announce, """
        local now = now_ms()
        local budget = tonumber(a_batch)
        redis.call('ZADD', k_nodes, now, a_node)
        local dead = redis.call('ZRANGEBYSCORE', k_nodes, '-inf', now - tonumber(a_nodeTTL), 'LIMIT', 0, 16)
        for _, node in ipairs(dead) do
          if budget <= 0 then break end
          if redis.call('EXISTS', tagged(a_nodePrefix, node)) == 0 then
            local users = tagged(a_nodeUsersPrefix, node)
            for _, user in ipairs(redis.call('SPOP', users, budget)) do
              -- Its route may be gone already (a message found the node dead), or belong
              -- to a newer login elsewhere: the announcement decides from what holds.
              local route_key = tagged(a_routePrefix, user)
              local r = redis.call('GET', route_key)
              if r and string.sub(r, 1, #node + 1) == node .. ':' then redis.call('DEL', route_key) end
              redis.call('ZADD', k_due, now, user)
              budget = budget - 1
            end
            if redis.call('SCARD', users) == 0 then redis.call('ZREM', k_nodes, node) end
          end
        end
        local out = {}
        for _, user in ipairs(redis.call('ZRANGEBYSCORE', k_due, '-inf', now, 'LIMIT', 0, tonumber(a_batch))) do
          redis.call('ZREM', k_due, user)
          local made = announce(user, now, 0, k_due)
          if made then out[#out + 1] = made end
        end
        return out
        """)
}
