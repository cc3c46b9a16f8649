/// Server frames of groups (docs/protocol.md "Groups"). Each returns the complete frame; every
/// one carries the group's whole state after the operation, so a client never has to merge.
///
///     group_created  {groupId, title, memberIds, ownerId, version}                          reply to group_create
///     group_updated  {groupId, title, memberIds, ownerId, version, added, removed, deleted} reply to group_update
///     group_event    {groupId, event, by, title, memberIds, ownerId, version, added, removed, deleted}
///                    to the other members, live or kept for the next login
///     group_info     {groupId, title, memberIds, ownerId, version}                          reply to group_get
///     group_list     {groups: [{groupId, title, ownerId, version}], nextCursor?}          reply to groups_list
///
/// `version` starts at 1 and grows by one with every change of the members or the title, so
/// a client compares it with its copy's (docs/protocol.md "Groups", "Resync").
public enum GroupFrames {
    public static let createdType = "group_created"
    public static let updatedType = "group_updated"
    public static let eventType = "group_event"
    public static let infoType = "group_info"
    public static let listType = "group_list"

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
        /// After the operation (a deleted group's last version plus one).
        public let version: Int64
        public let added: [WhisperID]
        public let removed: [WhisperID]
        /// The last member left: the group no longer exists (`memberIds` is empty).
        public let deleted: Bool

        public init(groupId: GroupID, title: String, memberIds: [WhisperID], ownerId: WhisperID, version: Int64,
                    added: [WhisperID], removed: [WhisperID], deleted: Bool) {
            self.groupId = groupId
            self.title = title
            self.memberIds = memberIds
            self.ownerId = ownerId
            self.version = version
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
            writer.member("version", state.version)
            writeChange(state, into: &writer)
        }
    }

    /// A group as a member sees it now (`group_get`).
    public struct Info: Sendable, Equatable {
        public let groupId: GroupID
        public let title: String
        /// Longest-standing first.
        public let memberIds: [WhisperID]
        public let ownerId: WhisperID
        public let version: Int64

        public init(groupId: GroupID, title: String, memberIds: [WhisperID], ownerId: WhisperID, version: Int64) {
            self.groupId = groupId
            self.title = title
            self.memberIds = memberIds
            self.ownerId = ownerId
            self.version = version
        }
    }

    /// One entry of `group_list`: enough to tell whether the client's copy is current.
    public struct Summary: Sendable, Equatable {
        public let groupId: GroupID
        public let title: String
        public let ownerId: WhisperID
        public let version: Int64

        public init(groupId: GroupID, title: String, ownerId: WhisperID, version: Int64) {
            self.groupId = groupId
            self.title = title
            self.ownerId = ownerId
            self.version = version
        }
    }

    /// Reply to `group_get`.
    public static func info(_ group: Info, requestId: String?) -> [UInt8] {
        let capacity = 256 + group.title.utf8.count * 6 + 20 * group.memberIds.count
        return OutboundFrame.encode(type: infoType, requestId: requestId, capacity: capacity) { writer in
            writeGroup(group.groupId, group.title, group.memberIds, group.ownerId, group.version, into: &writer)
        }
    }

    /// Reply to `groups_list`: one page, by group id; `nextCursor` only when more may follow.
    public static func list(_ groups: [Summary], nextCursor: GroupID?, requestId: String?) -> [UInt8] {
        let capacity = 128 + groups.reduce(0) { $0 + 160 + $1.title.utf8.count * 6 }
        return OutboundFrame.encode(type: listType, requestId: requestId, capacity: capacity) { writer in
            writer.key("groups")
            writer.beginArray()
            for group in groups {
                writer.beginObject()
                writer.member("groupId", group.groupId.string)
                writer.member("title", group.title)
                writer.member("ownerId", group.ownerId.string)
                writer.member("version", group.version)
                writer.endObject()
            }
            writer.endArray()
            if let nextCursor { writer.member("nextCursor", nextCursor.string) }
        }
    }

    private static func writeGroup(_ state: State, into writer: inout JSONWriter) {
        writeGroup(state.groupId, state.title, state.memberIds, state.ownerId, state.version, into: &writer)
    }

    private static func writeGroup(_ groupId: GroupID, _ title: String, _ memberIds: [WhisperID], _ ownerId: WhisperID,
                                   _ version: Int64, into writer: inout JSONWriter) {
        writer.member("groupId", groupId.string)
        writer.member("title", title)
        writer.member("memberIds", strings: memberIds.map(\.string))
        writer.member("ownerId", ownerId.string)
        writer.member("version", version)
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
