import WhisperProtocol

/// Answers "who is in this group?" for `group_send_message` without a PostgreSQL round trip
/// per message: one loop's cache over `GroupStore.find`, each entry stamped with the group's
/// membership epoch (docs/protocol.md "Groups", docs/operations.md "Groups").
///
/// Why a cached "member" can never let a removed member's message through, on any node:
/// 1. A change is written to PostgreSQL first, then `GroupEventStore.announce` gives the
///    group a fresh epoch — and only then is `group_updated` sent to the owner.
/// 2. A fill reads the epoch *before* the membership. A fill that read the membership before
///    the change therefore read the epoch before the change too, and holds the old one.
/// 3. Every accept carries the stamp and the accept script refuses it when the group's epoch
///    moved on (`AcceptOutcome.membershipChanged`): the sender re-reads and re-checks.
/// So correctness rests on the atomic epoch check, not on notices arriving in time. The
/// change notices (`forget`) and the drop-all after the node's subscriber reconnects
/// (`forgetAll`) keep the cache fresh — an added member is let in at once, a removed one is
/// refused without a wasted round trip — and a fill that straddles a notice is answered but
/// not kept (the `invalidations` counter), so it cannot outlive the notice. Entries expire
/// after `Limits.groupMembershipCacheSeconds` in any case. Loop-confined: no locks.
public final class GroupDirectory {
    /// A group's members as read under `epoch`.
    public struct Snapshot: Sendable, Equatable {
        public let members: Set<WhisperID>
        public let epoch: String
    }

    private let groups: GroupStore
    private let events: GroupEventStore
    private let ttlMillis: Int64
    private let capacity: Int
    private let now: () -> Int64
    /// nil snapshot: no such group (cached too, so probing unknown ids costs one read each).
    private var entries: [GroupID: (snapshot: Snapshot?, expiresAt: Int64)] = [:]
    /// Bumped by every `forget`/`forgetAll`: a fill that saw it move is not kept.
    private var invalidations: UInt64 = 0

    public init(groups: GroupStore, events: GroupEventStore, limits: Limits, now: @escaping () -> Int64) {
        self.groups = groups
        self.events = events
        self.ttlMillis = limits.groupMembershipCacheSeconds * 1000
        self.capacity = limits.groupMembershipCacheCapacity
        self.now = now
    }

    /// A cached answer completes at once, inside this call; a miss completes later, on the
    /// loop, after reading the epoch (Redis) and then the membership (PostgreSQL).
    public func snapshot(of groupId: GroupID, completion: @escaping StoreCompletion<Snapshot?>) {
        if let entry = entries[groupId], entry.expiresAt > now() { return completion(.success(entry.snapshot)) }
        let generation = invalidations
        events.epoch(of: groupId) { [self] result in
            switch result {
            case .failure(let error):
                completion(.failure(error))
            case .success(let epoch):
                groups.find(groupId) { [self] result in
                    switch result {
                    case .failure(let error):
                        completion(.failure(error))
                    case .success(let record):
                        let snapshot = record.map { Snapshot(members: Set($0.members), epoch: epoch) }
                        if invalidations == generation { remember(groupId, snapshot) }
                        completion(.success(snapshot))
                    }
                }
            }
        }
    }

    /// The group changed (a notice from any node, or a refused stale accept).
    public func forget(_ groupId: GroupID) {
        entries[groupId] = nil
        invalidations &+= 1
    }

    /// Notices may have been missed (the subscriber reconnected): nothing cached is trusted.
    public func forgetAll() {
        entries.removeAll(keepingCapacity: true)
        invalidations &+= 1
    }

    private func remember(_ groupId: GroupID, _ snapshot: Snapshot?) {
        if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
        entries[groupId] = (snapshot, now() + ttlMillis)
    }
}
