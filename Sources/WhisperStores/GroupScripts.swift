import WhisperStorage

/// The Lua script behind `RedisGroupEventStore` (docs/protocol.md "Groups").
package enum GroupScripts {
    /// What the epoch of a group that has none reads as. Never a generated token (those are hex).
    package static let noEpoch = "none"

    package enum EpochKey: String, ScriptNames {
        /// `group-epoch:{groupId}`.
        case epoch
    }

    package enum EpochArgument: String, ScriptNames {
        /// The new epoch ('' when the group was deleted: the key goes).
        case epoch
    }

    /// A group changed: its epoch moves (the step in the group's slot). `RedisGroupEventStore`
    /// then publishes the change notice and routes the event to each recipient, each in the
    /// recipient's slot.
    package static let moveEpoch = RedisScript(keys: EpochKey.self, arguments: EpochArgument.self, """
        if a_epoch == '' then redis.call('DEL', k_epoch) else redis.call('SET', k_epoch, a_epoch) end
        return 1
        """)
}
