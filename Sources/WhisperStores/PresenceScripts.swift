import WhisperStorage

/// The Lua scripts behind `RedisPresence`: a socket coming to hold a user's session or
/// letting go of it, and the sweep every node runs (docs/protocol.md "Presence"). Each touches
/// one hash slot (issue #27): the user's, a peer's, a node's, or a singleton's.
///
/// What a user's direct peers were last told is `presence:{user}` {s, t}. A change of the
/// user's status (its `route:` exists or not) is announced to its online direct peers when
/// both hold: the peers were told otherwise, and the last announcement is at least the
/// minimum interval old — and, for `offline`, the user has stayed away the grace period.
/// Otherwise the user waits in `presence-due` until then, and whichever node sweeps first
/// announces the status that holds at that time (maybe none, if it flapped back). So a
/// phone that flaps costs its peers at most one frame per interval, and they always end
/// up with its real status. Blocking (docs/protocol.md "Blocking") hides both ways: a peer the
/// user blocked is skipped in the user's step, one that blocked the user in the peer's.
///
/// The user's step decides (`decide`) and answers what the caller does next in other slots:
/// `{'told'}` (nothing due: drop the user from `presence-due`), `{'due', at}` (schedule it),
/// or `{'announce', frame, peer…}` (drop it from `presence-due`, and route the frame to each
/// peer through `peer`, which answers the peer's route unless the peer blocked the user).
package enum PresenceScripts {
    /// The settings the deciding steps take at the end of their ARGV.
    package enum DecideSetting: String, ScriptNames {
        /// Minimum interval between announcements and the direct-peer window, ms.
        case minInterval, peerWindow, maxPeers
        /// TTL of `presence:{user}`, ms.
        case recordTTL
    }

    /// Lua `decide(user, route_key, record, peers_key, own_blocked, now, grace)`: see above.
    private static let decide = MessageScripts.prelude + """
        local function presence_frame(user, status, now)
          return '{"type":"presence","payload":{"whisperId":"' .. user .. '","status":"' .. status ..
            '","timestamp":' .. string.format('%d', now) .. '}}'
        end
        local function decide(user, route_key, record, peers_key, own_blocked, now, grace)
          local status = redis.call('EXISTS', route_key) == 1 and 'online' or 'offline'
          local told = redis.call('HMGET', record, 's', 't')
          if told[1] == status then return {'told'} end
          local at = (tonumber(told[2]) or 0) + tonumber(a_minInterval)
          if grace > 0 then at = math.max(at, now + grace) end
          if at > now then return {'due', at} end
          redis.call('HSET', record, 's', status, 't', now)
          redis.call('PEXPIRE', record, a_recordTTL)
          local out = {'announce', presence_frame(user, status, now)}
          local peers = redis.call('ZREVRANGEBYSCORE', peers_key, '+inf', now - tonumber(a_peerWindow),
                                   'LIMIT', 0, tonumber(a_maxPeers))
          local blocks = redis.call('EXISTS', own_blocked) == 1
          for _, peer in ipairs(peers) do
            if not (blocks and redis.call('SISMEMBER', own_blocked, peer) == 1) then out[#out + 1] = peer end
          end
          return out
        end

        """

    /// The keys every deciding step (in the user's slot) names first.
    package enum UserKey: String, ScriptNames {
        /// `route:{user}`, `presence:{user}`, `peers:{user}`, `blocked:{user}`.
        case route, presence, peers, blocked
    }

    package enum ArriveKey: String, ScriptNames {
        /// `route:{user}`, `presence:{user}`, `peers:{user}`, `blocked:{user}`, `events:{user}`,
        /// `push-wake:{user}`, `calls-held:{user}`.
        case route, presence, peers, blocked, events, pushWake, held
    }

    package enum ArriveArgument: String, ScriptNames {
        /// The route text of the socket.
        case route, user
    }

    /// A socket now holds the user's session: the route is set, the kept events read (they stay
    /// until `forgetEvents`, once written to the socket), the push coalescing window ends (the
    /// next thing queued after it wakes the user again) and the `online` announcement decided.
    /// Returns {kept events oldest first, the node of the route replaced ('' when none), 1 when
    /// calls are held for the user else 0, decision}.
    package static let arrive = RedisScript(keys: ArriveKey.self, arguments: ArriveArgument.self, DecideSetting.self,
                                            prelude: decide, """
        local now = now_ms()
        local old = redis.call('GET', k_route)
        redis.call('SET', k_route, a_route)
        redis.call('PEXPIRE', k_presence, a_recordTTL)
        redis.call('DEL', k_pushWake)
        local events = redis.call('LRANGE', k_events, 0, -1)
        return {events, old and string.match(old, '^([^:]+):') or '', redis.call('EXISTS', k_held),
                decide(a_user, k_route, k_presence, k_peers, k_blocked, now, 0)}
        """)

    package enum ForgetEventsKey: String, ScriptNames {
        /// `events:{user}`.
        case events
    }

    package enum ForgetEventsArgument: String, ScriptNames {
        /// How many were written, and the first of them.
        case count, first
    }

    /// The kept events `arrive` read were written to the socket: they go, unless the queue no
    /// longer starts with them (another login's socket took them, or the queue overflowed):
    /// then they stay, and a later login may get one again rather than nobody. Events kept
    /// meanwhile were pushed behind them and stay. Returns 1 if forgotten, else 0.
    package static let forgetEvents = RedisScript(keys: ForgetEventsKey.self, arguments: ForgetEventsArgument.self, """
        if redis.call('LINDEX', k_events, 0) ~= a_first then return 0 end
        redis.call('LTRIM', k_events, tonumber(a_count), -1)
        return 1
        """)

    package enum LeaveArgument: String, ScriptNames {
        /// Its route text; the offline grace, ms.
        case route, user, grace
    }

    /// The socket let go of the session: the route goes only if it is still this socket's (a
    /// newer login may own it). Returns {'elsewhere'} when it was not (nothing changed), else
    /// the decision.
    package static let leave = RedisScript(keys: UserKey.self, arguments: LeaveArgument.self, DecideSetting.self,
                                           prelude: decide, """
        if redis.call('GET', k_route) ~= a_route then return {'elsewhere'} end
        redis.call('DEL', k_route)
        redis.call('PEXPIRE', k_presence, a_recordTTL)
        return decide(a_user, k_route, k_presence, k_peers, k_blocked, now_ms(), tonumber(a_grace))
        """)

    package enum RecheckArgument: String, ScriptNames {
        /// `deadNode`: the node that died holding the user ('' for a due announcement).
        case user, deadNode
    }

    /// The sweep's step for one user: a user of a dead node loses its route if that node
    /// still holds it (a newer login elsewhere keeps its own), then the decision.
    package static let recheck = RedisScript(keys: UserKey.self, arguments: RecheckArgument.self, DecideSetting.self,
                                             prelude: decide, """
        if a_deadNode ~= '' then
          local r = redis.call('GET', k_route)
          if r and string.sub(r, 1, #a_deadNode + 1) == a_deadNode .. ':' then redis.call('DEL', k_route) end
        end
        return decide(a_user, k_route, k_presence, k_peers, k_blocked, now_ms(), 0)
        """)

    package enum PeerKey: String, ScriptNames {
        /// `blocked:{peer}`, `route:{peer}`.
        case blocked, route
    }

    package enum PeerArgument: String, ScriptNames { case user }

    /// An announcement for one peer: its route ('offline' when none), or '' when the peer
    /// blocked the announced user.
    package static let peer = RedisScript(keys: PeerKey.self, arguments: PeerArgument.self, """
        if redis.call('SISMEMBER', k_blocked, a_user) == 1 then return '' end
        return redis.call('GET', k_route) or 'offline'
        """)

    package enum NodesKey: String, ScriptNames {
        /// `nodes`.
        case nodes
    }

    package enum NodesArgument: String, ScriptNames { case node, nodeTTL }

    /// The sweep's first step: this node is alive in `nodes`; answers the nodes whose last
    /// sweep is older than the node TTL (up to 16), to be checked in their own slots.
    package static let nodes = RedisScript(keys: NodesKey.self, arguments: NodesArgument.self, prelude: MessageScripts.prelude, """
        local now = now_ms()
        redis.call('ZADD', k_nodes, now, a_node)
        return redis.call('ZRANGEBYSCORE', k_nodes, '-inf', now - tonumber(a_nodeTTL), 'LIMIT', 0, 16)
        """)

    package enum DeadNodeKey: String, ScriptNames {
        /// `node:{n}`, `node-users:{n}` (one slot: the node's).
        case node, users
    }

    package enum DeadNodeArgument: String, ScriptNames { case budget }

    /// Takes up to `budget` users of node n if n is dead (its liveness key expired). Returns
    /// {users, how many are left} — {{}, -1} when n is alive.
    package static let deadNode = RedisScript(keys: DeadNodeKey.self, arguments: DeadNodeArgument.self, """
        if redis.call('EXISTS', k_node) == 1 then return {{}, -1} end
        local users = redis.call('SPOP', k_users, tonumber(a_budget))
        return {users, redis.call('SCARD', k_users)}
        """)

    package enum DueKey: String, ScriptNames {
        /// `presence-due`.
        case due
    }

    package enum ClaimArgument: String, ScriptNames { case batch, lease }

    /// Claims the announcements that are due: each user's score moves `lease` ms ahead (so no
    /// other node takes it meanwhile, and a node dying before it announced leaves it to the
    /// sweep after the lease). Returns {lease score, users…}.
    package static let claim = RedisScript(keys: DueKey.self, arguments: ClaimArgument.self, prelude: MessageScripts.prelude, """
        local now = now_ms()
        local users = redis.call('ZRANGEBYSCORE', k_due, '-inf', now, 'LIMIT', 0, tonumber(a_batch))
        local until_ = now + tonumber(a_lease)
        for _, user in ipairs(users) do redis.call('ZADD', k_due, 'XX', string.format('%d', until_), user) end
        table.insert(users, 1, string.format('%d', until_))
        return users
        """)

    package enum ReleaseArgument: String, ScriptNames {
        /// The lease score of the claim ('' for none: the user's entry goes whatever its score);
        /// `at`: when the user is due again ('' for never).
        case user, lease, at
    }

    /// After a decision: the user leaves `presence-due` — unless someone scheduled it anew
    /// since the claim (its score is no longer the lease) — or is scheduled at `at`.
    package static let release = RedisScript(keys: DueKey.self, arguments: ReleaseArgument.self, """
        if a_at ~= '' then
          redis.call('ZADD', k_due, a_at, a_user)
        elseif a_lease == '' or redis.call('ZSCORE', k_due, a_user) == a_lease then
          redis.call('ZREM', k_due, a_user)
        end
        return 1
        """)
}
