import WhisperProtocol

/// A group as stored: members longest-standing first (the order ownership passes in).
public struct GroupRecord: Sendable, Equatable {
    public let groupId: GroupID
    public var title: String
    public var ownerId: WhisperID
    /// Earliest `joined_at` first; members who joined in the same operation by Whisper ID.
    public var members: [WhisperID]
    /// 1 at creation, one more with every change of the members or the title.
    public var version: Int64

    public init(groupId: GroupID, title: String, ownerId: WhisperID, members: [WhisperID], version: Int64 = 1) {
        self.groupId = groupId
        self.title = title
        self.ownerId = ownerId
        self.members = members
        self.version = version
    }
}

/// An update decided by `GroupRules` and applied by the store.
public struct GroupChange: Sendable, Equatable {
    public let before: GroupRecord
    /// The group afterwards; its `members` is empty when the last member left and the group
    /// is deleted.
    public let after: GroupRecord
    /// Members who joined with this change (they join after everyone already there).
    public let added: [WhisperID]
    public let removed: [WhisperID]

    public var deleted: Bool { after.members.isEmpty }

    public init(before: GroupRecord, after: GroupRecord, added: [WhisperID], removed: [WhisperID]) {
        self.before = before
        self.after = after
        self.added = added
        self.removed = removed
    }
}

public enum GroupCreateOutcome: Sendable, Equatable {
    case created
    /// Some member id is not a registered identity: nothing was stored.
    case unknownMembers
}

public enum GroupUpdateOutcome: Sendable, Equatable {
    case applied(GroupChange)
    case unknownGroup
    /// The rules refused the change: nothing was stored.
    case refused(GroupRefusal)
    /// Some added id is not a registered identity: nothing was stored.
    case unknownMembers
}

/// `groups` and `group_members` (PostgreSQL). Completions run on the caller's loop.
public protocol GroupStore {
    /// Stores `group` (owner and members as given, all joining now) unless a member is unknown.
    func create(_ group: GroupRecord, completion: @escaping StoreCompletion<GroupCreateOutcome>)

    /// In one transaction: locks the group, lets `decide` turn its current state into a change
    /// (or a refusal), checks that every added id is registered, and writes the change —
    /// deleting the group when no member is left.
    func update(_ groupId: GroupID, decide: @escaping @Sendable (GroupRecord) -> Result<GroupChange, GroupRefusal>,
                completion: @escaping StoreCompletion<GroupUpdateOutcome>)

    /// The group's current state; nil when there is no such group.
    func find(_ groupId: GroupID, completion: @escaping StoreCompletion<GroupRecord?>)

    /// Up to `limit` groups `member` belongs to, by group id, starting after `after`.
    func groups(of member: WhisperID, after: GroupID?, limit: Int,
                completion: @escaping StoreCompletion<[GroupFrames.Summary]>)
}

/// The cross-node side of groups (Redis): each group's membership epoch, and the notices
/// and events of a change.
public protocol GroupEventStore {
    /// The group's current membership epoch (an opaque token that changes with every
    /// announced change and never repeats): read before the membership itself, so a
    /// membership read before a change is stamped with an epoch the change replaced.
    func epoch(of groupId: GroupID, completion: @escaping StoreCompletion<String>)

    /// In one atomic step: give the group a fresh epoch (`MessageStore.accept` refuses
    /// messages stamped with an older one), publish a change notice to every node (their
    /// membership caches drop the group), and route `event` to each of `recipients` — to a
    /// live socket, or into its event queue when it is offline. Answers each recipient's
    /// routing, in order, for the caller to write the local ones.
    func announce(_ groupId: GroupID, deleted: Bool, event: [UInt8], to recipients: [WhisperID],
                  completion: @escaping StoreCompletion<[Routing]>)
}
