import WhisperProtocol

/// What removing an identity's records found (`AccountRecordStore.remove`).
public enum AccountRemoval: Sendable, Equatable {
    /// The identity is still a member of these groups: nothing was removed (it must leave
    /// them first, so the other members hear of it).
    case memberOf([GroupID])
    /// The identity's records are gone and its id is retired; `firstTime` is false when an
    /// earlier attempt had already removed them (a retry).
    case removed(firstTime: Bool)
}

/// The PostgreSQL side of an account deletion.
public protocol AccountRecordStore {
    /// In one transaction, holding the identity's `users` row lock (so no group can add it
    /// meanwhile): if it is still a member of some group, answers `.memberOf` and changes
    /// nothing; otherwise retires the id for good (`deleted_identities`), deletes the
    /// identity with its keys, devices and push tokens and contacts backup, makes its
    /// attachments collectable, and — the first time only — writes the `audit_events` row.
    /// Safe to repeat.
    func remove(_ whisperId: WhisperID, completion: @escaping StoreCompletion<AccountRemoval>)
}

/// The Redis side of an account deletion: what is queued for the identity.
public protocol AccountQueueStore {
    /// Deletes the identity's pending queue (keeping the `pending-count` total right), its
    /// kept events, its direct-peer list and its push coalescing window, in one atomic step.
    /// Answers how many queued messages went. Safe to repeat.
    func purge(_ whisperId: WhisperID, completion: @escaping StoreCompletion<Int>)
}

/// A member leaving a group the way `group_update` has it (`GroupService.leave`).
public protocol GroupDeparture {
    /// `nil` when the group is gone or `member` had already left it.
    func leave(_ groupId: GroupID, member: WhisperID, client: ClientRef,
               completion: @escaping (Result<GroupFrames.State?, ServiceError>) -> Void)
}
