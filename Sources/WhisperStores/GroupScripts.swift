import WhisperStorage

/// The Lua scripts behind `RedisGroupEventStore`; each is one atomic step (docs/protocol.md "Groups").
package enum GroupScripts {
    /// What the epoch of a group that has none reads as. Never a generated token (those are hex).
    package static let noEpoch = "none"

    package enum AnnounceKey: String, ScriptNames {
        /// `group-epoch:{groupId}`.
        case epoch
    }

    package enum AnnounceArgument: String, ScriptNames {
        /// `epoch`: the new one ('' when the group was deleted: the key goes); `channel`: the
        /// change channel; `event`: the frame.
        case epoch, channel, groupId, event, eventTTL, maxEvents
    }

    /// A group changed. After the names: KEYS `route:{user}`, `events:{user}` per recipient, ARGV
    /// the recipients' ids.
    /// Returns each recipient's routing ('offline' = kept in its event queue).
    ///
    /// The epoch moves and the notice is published before any event is routed: a node
    /// processes its subscriber's messages in order, so it forgets the group before it writes
    /// the event to a member, who may answer with a message at once.
    package static let announce = RedisScript(keys: AnnounceKey.self, arguments: AnnounceArgument.self, RouteArgument.self,
                                              prelude: MessageScripts.prelude, """
        if a_epoch == '' then redis.call('DEL', k_epoch) else redis.call('SET', k_epoch, a_epoch) end
        redis.call('PUBLISH', a_channel, a_groupId)
        local frame = function() return a_event end
        local routings = {}
        for i = a_rest, #ARGV do
          local n = i - a_rest + 1
          local route_key, events_key = KEYS[k_rest + 2 * (n - 1)], KEYS[k_rest + 2 * (n - 1) + 1]
          local where = route(route_key, ARGV[i], 'e', '0', frame, a_node, a_nodePrefix, a_channelPrefix)
          if where == 'offline' then keep(events_key, a_event, a_eventTTL, a_maxEvents) end
          routings[n] = where
        end
        return routings
        """)
}
