/// Server frames of groups (docs/protocol.md "Groups"). Each returns the complete frame; every
/// one carries the group's whole state after the operation, so a client never has to merge.
///
///     group_created  {groupId, title, memberIds, ownerId}                          reply to group_create
///     group_updated  {groupId, title, memberIds, ownerId, added, removed, deleted} reply to group_update
///     group_event    {groupId, event, by, title, memberIds, ownerId, added, removed, deleted}
///                    to the other members, live or kept for the next login
public enum GroupFrames {
    public static let createdType = "group_created"
    public static let updatedType = "group_updated"
    public static let eventType = "group_event"

    /// `group_event.event`.
    public enum Event: String, Sendable {
        case created
        case updated
    }

    /// A group's state after an operation, and what the operation changed.
    public struct State: Sendable, Equatable {
        public let groupId: GroupID
        public let title: String
        /// Longest-standing first (the order ownership passes in).
        public let memberIds: [WhisperID]
        public let ownerId: WhisperID
        public let added: [WhisperID]
        public let removed: [WhisperID]
        /// The last member left: the group no longer exists (`memberIds` is empty).
        public let deleted: Bool

        public init(groupId: GroupID, title: String, memberIds: [WhisperID], ownerId: WhisperID,
                    added: [WhisperID], removed: [WhisperID], deleted: Bool) {
            self.groupId = groupId
            self.title = title
            self.memberIds = memberIds
            self.ownerId = ownerId
            self.added = added
            self.removed = removed
            self.deleted = deleted
        }
    }

    /// Reply to `group_create`.
    public static func created(_ state: State, requestId: String?) -> [UInt8] {
        OutboundFrame.encode(type: createdType, requestId: requestId, capacity: capacity(state)) { writer in
            writeGroup(state, into: &writer)
        }
    }

    /// Reply to `group_update`.
    public static func updated(_ state: State, requestId: String?) -> [UInt8] {
        OutboundFrame.encode(type: updatedType, requestId: requestId, capacity: capacity(state)) { writer in
            writeGroup(state, into: &writer)
            writeChange(state, into: &writer)
        }
    }

    /// To each other member before and after the operation. Not a reply: no `requestId`.
    public static func event(_ event: Event, by actor: WhisperID, _ state: State) -> [UInt8] {
        OutboundFrame.encode(type: eventType, requestId: nil, capacity: capacity(state)) { writer in
            writer.member("groupId", state.groupId.string)
            writer.member("event", event.rawValue)
            writer.member("by", actor.string)
            writer.member("title", state.title)
            writer.member("memberIds", strings: state.memberIds.map(\.string))
            writer.member("ownerId", state.ownerId.string)
            writeChange(state, into: &writer)
        }
    }

    private static func writeGroup(_ state: State, into writer: inout JSONWriter) {
        writer.member("groupId", state.groupId.string)
        writer.member("title", state.title)
        writer.member("memberIds", strings: state.memberIds.map(\.string))
        writer.member("ownerId", state.ownerId.string)
    }

    private static func writeChange(_ state: State, into writer: inout JSONWriter) {
        writer.member("added", strings: state.added.map(\.string))
        writer.member("removed", strings: state.removed.map(\.string))
        writer.member("deleted", state.deleted)
    }

    /// A Whisper ID in JSON is 20 bytes with quotes and comma; the title is escaped at most 6×.
    private static func capacity(_ state: State) -> Int {
        256 + state.title.utf8.count * 6 + 20 * (2 * state.memberIds.count + state.added.count + state.removed.count)
    }
}
