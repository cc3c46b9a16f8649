import WhisperProtocol

/// Why `group_update` was refused (docs/protocol.md "Groups").
public enum GroupRefusal: Error, Sendable, Equatable {
    /// The caller is not a member → `FORBIDDEN`.
    case notMember
    /// A non-owner tried to add, remove someone else or retitle → `FORBIDDEN`.
    case ownerOnly
    /// The group would have more than `max` members → `INVALID_PAYLOAD`.
    case tooManyMembers(max: Int)

    var serviceError: ServiceError {
        switch self {
        case .notMember: return .forbidden("not a member of this group")
        case .ownerOnly: return .forbidden("only the group owner may add, remove others or retitle")
        case .tooManyMembers(let max): return .invalidPayload(.tooManyItems(field: "memberIds", max: max))
        }
    }
}

/// Who may change what in a group (docs/protocol.md "Groups"), as a pure function of the stored state,
/// so the store can run it inside the transaction that holds the group's lock.
///
/// - Only a member may update; only the owner may add members, remove others or retitle;
///   any member may remove itself (leave).
/// - Adding a member who is already in, or removing one who is not, changes nothing.
/// - The owner leaving hands ownership to the longest-standing remaining member (earliest
///   join, then smallest Whisper ID); the last member leaving deletes the group.
/// - The group may never exceed `maxMembers`, the owner included.
/// - A change of the members or the title raises the version by one; an update that changes
///   nothing keeps it (so resyncing clients do not fetch a group that did not change).
public struct GroupRules: Sendable {
    public let maxMembers: Int

    public init(maxMembers: Int) {
        self.maxMembers = maxMembers
    }

    public func apply(_ update: GroupUpdatePayload, by caller: WhisperID, to group: GroupRecord) -> Result<GroupChange, GroupRefusal> {
        let current = Set(group.members)
        guard current.contains(caller) else { return .failure(.notMember) }
        let added = update.addMembers.filter { !current.contains($0) }
        let removing = Set(update.removeMembers.filter { current.contains($0) })
        if caller != group.ownerId {
            let othersRemoved = removing.contains { $0 != caller }
            guard added.isEmpty, !othersRemoved, update.title == nil else { return .failure(.ownerOnly) }
        }
        let remaining = group.members.filter { !removing.contains($0) }
        // Members added together join after everyone already there, among themselves by id.
        let members = remaining + added.sorted { $0.string < $1.string }
        guard members.count <= maxMembers else { return .failure(.tooManyMembers(max: maxMembers)) }
        let owner = removing.contains(group.ownerId) ? members.first ?? group.ownerId : group.ownerId
        let title = update.title ?? group.title
        let changed = !added.isEmpty || !removing.isEmpty || title != group.title
        let after = GroupRecord(groupId: group.groupId, title: title, ownerId: owner, members: members,
                                version: group.version + (changed ? 1 : 0))
        return .success(GroupChange(before: group, after: after, added: added,
                                    removed: group.members.filter { removing.contains($0) }))
    }
}
