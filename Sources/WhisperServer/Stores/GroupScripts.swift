import WhisperStorage

/// The Lua scripts behind `RedisGroupEventStore`; each is one atomic step (docs/protocol.md "Groups").
enum GroupScripts {
    /// What the epoch of a group that has none reads as. Never a generated token (those are hex).
    static let noEpoch = "none"

    /// A group changed. KEYS: 1 group-epoch:{groupId}, then per recipient i: route:{user},
    /// events:{user} (KEYS[2i], KEYS[2i+1]).
    /// ARGV: 1 new epoch ('' when the group was deleted: the key goes), 2 change channel,
    /// 3 groupId, 4 event frame, 5 this node, 6 node key prefix, 7 delivery channel prefix,
    /// 8 event TTL ms, 9 max events, 10… the recipients' ids.
    /// Returns each recipient's routing ('offline' = kept in its event queue).
    ///
    /// The epoch moves and the notice is published before any event is routed: a node
    /// processes its subscriber's messages in order, so it forgets the group before it writes
    /// the event to a member, who may answer with a message at once.
    static let announce = RedisScript(source: MessageScripts.prelude + """
        if ARGV[1] == '' then redis.call('DEL', KEYS[1]) else redis.call('SET', KEYS[1], ARGV[1]) end
        redis.call('PUBLISH', ARGV[2], ARGV[3])
        local frame = function() return ARGV[4] end
        local routings = {}
        for i = 10, #ARGV do
          local n = i - 9
          local route_key, events_key = KEYS[2 * n], KEYS[2 * n + 1]
          local where = route(route_key, ARGV[i], 'e', '0', frame, ARGV[5], ARGV[6], ARGV[7])
          if where == 'offline' then keep(events_key, ARGV[4], ARGV[8], ARGV[9]) end
          routings[n] = where
        end
        return routings
        """)
}
