import WhisperOps
import WhisperProtocol

/// Groups (docs/protocol.md "Groups"): `group_create` and `group_update`. Group messages go through
/// `MessagingService` (one accept path for 1:1 and group sends). One instance per event loop;
/// every completion runs on that loop.
///
/// `group_create {title, memberIds}`, top to bottom (the payload was validated by the gateway):
/// 1. the creator plus the distinct `memberIds` at most `maxGroupMembers` → else `INVALID_PAYLOAD`;
/// 2. GROUP rate limit per identity and per IP → else `RATE_LIMITED`;
/// 3. every member registered → else `NOT_FOUND`; stored with the creator as owner;
/// 4. announced (`GroupEventStore.announce`): a fresh epoch, a change notice to every node, and
///    `group_event {event:"created"}` to every other member, live or kept for its next login;
/// 5. `group_created` to the creator.
///
/// `group_update {groupId, addMembers, removeMembers, title?}`:
/// 1. GROUP rate limit → else `RATE_LIMITED`;
/// 2. in one transaction holding the group's row lock: the group exists → else `NOT_FOUND`;
///    `GroupRules` (member, owner-only changes, the member cap) → `FORBIDDEN` / `INVALID_PAYLOAD`;
///    every added id registered → else `NOT_FOUND`; the change written (the owner leaving hands
///    ownership on; the last member leaving deletes the group);
/// 3. announced as above — `group_event {event:"updated"}` to every member before or after the
///    change but the caller — BEFORE the reply, so once the owner reads `group_updated` no node
///    accepts a message from or to a removed member (see `GroupDirectory`);
/// 4. `group_updated` to the caller.
/// A failure after step 2's commit answers `INTERNAL_ERROR`; repeating the same update is
/// harmless (nothing left to change) and announces again.
///
/// Resync (an app reinstalled, or offline past the kept events):
/// - `group_get {groupId}`: GROUP rate limit; the group's state for a current member; for
///   anyone else `NOT_FOUND`, exactly as for a group that does not exist, so the answer never
///   tells a non-member whether a group exists.
/// - `groups_list {cursor?, limit?}`: GROUP rate limit; one page of the caller's groups by id,
///   each with its version, so the client fetches only the groups whose version moved.
///
/// `leave` is a member removing itself through the same steps 2–3, without the rate limit
/// (account deletion leaves every group of the identity, `AccountDeletionService`).
public final class GroupService: GroupDeparture {
    public typealias Completion<T> = (Result<T, ServiceError>) -> Void

    private let limits: Limits
    private let store: GroupStore
    private let events: GroupEventStore
    private let directory: GroupDirectory
    private let router: MessageRouter
    private let rateLimiter: RateLimiter
    /// Push wake-ups for members whose event was kept; nil: push is off.
    private let wakeUps: WakeUps?
    private let log: Log

    public init(limits: Limits, store: GroupStore, events: GroupEventStore, directory: GroupDirectory,
                router: MessageRouter, rateLimiter: RateLimiter, wakeUps: WakeUps? = nil, log: Log) {
        self.limits = limits
        self.store = store
        self.events = events
        self.directory = directory
        self.router = router
        self.rateLimiter = rateLimiter
        self.wakeUps = wakeUps
        self.log = log
    }

    // MARK: group_create

    public func create(_ request: GroupCreatePayload, session: SessionRecord, client: ClientRef,
                       completion: @escaping Completion<GroupFrames.State>) {
        let creator = session.whisperId
        let members = Set(request.memberIds + [creator]).sorted { $0.string < $1.string }
        guard members.count <= limits.maxGroupMembers else {
            return completion(.failure(.invalidPayload(.tooManyItems(field: "memberIds", max: limits.maxGroupMembers))))
        }
        rateLimiter.check(.group, subjects: [.ip(client.ip), .identity(creator.string)]) { [self] result in
            if case .failure(let error) = result { return completion(.failure(error)) }
            let group = GroupRecord(groupId: .random(), title: request.title, ownerId: creator, members: members)
            store.create(group) { [self] result in
                switch result {
                case .failure(let error):
                    completion(.failure(.storage(error)))
                case .success(.unknownMembers):
                    completion(.failure(.notFound("unknown member id")))
                case .success(.created):
                    let state = GroupFrames.State(groupId: group.groupId, title: group.title, memberIds: members,
                                                  ownerId: creator, version: group.version,
                                                  added: members.filter { $0 != creator }, removed: [],
                                                  deleted: false)
                    announce(.created, state, by: creator, to: state.added, client: client, completion)
                }
            }
        }
    }

    // MARK: group_update

    public func update(_ request: GroupUpdatePayload, session: SessionRecord, client: ClientRef,
                       completion: @escaping Completion<GroupFrames.State>) {
        let caller = session.whisperId
        rateLimiter.check(.group, subjects: [.ip(client.ip), .identity(caller.string)]) { [self] result in
            if case .failure(let error) = result { return completion(.failure(error)) }
            apply(request, by: caller, client: client) { [self] result in
                switch result {
                case .failure(let error):
                    completion(.failure(.storage(error)))
                case .success(.unknownGroup):
                    completion(.failure(.notFound("unknown group")))
                case .success(.refused(let refusal)):
                    completion(.failure(refusal.serviceError))
                case .success(.unknownMembers):
                    completion(.failure(.notFound("unknown member id")))
                case .success(.applied(let change)):
                    announce(change, by: caller, client: client, completion)
                }
            }
        }
    }

    // MARK: Leaving (account deletion)

    /// `member` leaves `groupId` exactly as its `group_update {removeMembers: [member]}` would
    /// (the same rules under the group's lock: ownership handed on, the last member deleting
    /// the group; the same `group_event` to every other member), minus the GROUP rate limit.
    /// A group that is gone, or that `member` is no longer in, was already left: `nil`.
    public func leave(_ groupId: GroupID, member: WhisperID, client: ClientRef,
                      completion: @escaping Completion<GroupFrames.State?>) {
        let request = GroupUpdatePayload(groupId: groupId, addMembers: [], removeMembers: [member], title: nil)
        apply(request, by: member, client: client) { [self] result in
            switch result {
            case .failure(let error):
                completion(.failure(.storage(error)))
            case .success(.unknownGroup), .success(.refused(.notMember)):
                completion(.success(nil))
            case .success(.refused(let refusal)):
                completion(.failure(refusal.serviceError))
            case .success(.unknownMembers):
                completion(.failure(.internalFailure("a leave added members")))
            case .success(.applied(let change)):
                announce(change, by: member, client: client) { completion($0.map(Optional.some)) }
            }
        }
    }

    /// Step 2: the rules and the write, in the store's transaction holding the group's lock.
    private func apply(_ request: GroupUpdatePayload, by caller: WhisperID, client: ClientRef,
                       completion: @escaping StoreCompletion<GroupUpdateOutcome>) {
        let rules = GroupRules(maxMembers: limits.maxGroupMembers)
        store.update(request.groupId, decide: { rules.apply(request, by: caller, to: $0) }, completion: completion)
    }

    // MARK: group_get, groups_list

    public func get(_ request: GroupGetPayload, session: SessionRecord, client: ClientRef,
                    completion: @escaping Completion<GroupFrames.Info>) {
        let caller = session.whisperId
        rateLimiter.check(.group, subjects: [.ip(client.ip), .identity(caller.string)]) { [self] result in
            if case .failure(let error) = result { return completion(.failure(error)) }
            store.find(request.groupId) { result in
                switch result {
                case .failure(let error):
                    completion(.failure(.storage(error)))
                case .success(let group?) where group.members.contains(caller):
                    completion(.success(GroupFrames.Info(groupId: group.groupId, title: group.title, memberIds: group.members,
                                                         ownerId: group.ownerId, version: group.version)))
                case .success:
                    // No such group, or not the caller's: one answer for both.
                    completion(.failure(.notFound("unknown group")))
                }
            }
        }
    }

    /// A page and the cursor of the next one (nil: this was the last).
    public struct Page: Sendable, Equatable {
        public let groups: [GroupFrames.Summary]
        public let nextCursor: GroupID?
    }

    public func list(_ request: GroupsListPayload, session: SessionRecord, client: ClientRef,
                     completion: @escaping Completion<Page>) {
        let caller = session.whisperId
        rateLimiter.check(.group, subjects: [.ip(client.ip), .identity(caller.string)]) { [self] result in
            if case .failure(let error) = result { return completion(.failure(error)) }
            // One more than asked tells whether another page follows.
            store.groups(of: caller, after: request.after, limit: request.limit + 1) { result in
                completion(result.mapError(ServiceError.storage).map { groups in
                    guard groups.count > request.limit else { return Page(groups: groups, nextCursor: nil) }
                    let page = Array(groups.prefix(request.limit))
                    return Page(groups: page, nextCursor: page.last?.groupId)
                })
            }
        }
    }

    // MARK: Announcing

    /// Step 4 / 3: the epoch, the notice to every node, the events; this loop forgets the
    /// group at once (its own notice comes back later through the subscriber).
    private func announce(_ kind: GroupFrames.Event, _ state: GroupFrames.State, by actor: WhisperID,
                          to recipients: [WhisperID], client: ClientRef, _ completion: @escaping Completion<GroupFrames.State>) {
        let event = GroupFrames.event(kind, by: actor, state)
        events.announce(state.groupId, deleted: state.deleted, event: event, to: recipients) { [self] result in
            directory.forget(state.groupId)
            switch result {
            case .failure(let error):
                completion(.failure(.storage(error)))
            case .success(let routings):
                for (recipient, routing) in zip(recipients, routings) {
                    switch routing {
                    case .local(let route): router.deliver(event, to: recipient, at: route, kind: .event, receivedAtMicros: 0)
                    case .offline: wakeUps?.wake(recipient)  // kept for its next login
                    case .remote: break
                    }
                }
                if log.isEnabled(.info) {
                    let name: StaticString = kind == .created ? "group_created" : "group_updated"
                    let fields: KeyValuePairs<StaticString, LogValue> = [
                        "groupId": .string(state.groupId.string), "members": .int(state.memberIds.count),
                        "added": .int(state.added.count), "removed": .int(state.removed.count), "deleted": .bool(state.deleted),
                    ]
                    // Naming the actor pairs a member with the group: debug only (docs/security.md).
                    if log.isEnabled(.debug) {
                        log.debug(name, connId: client.connection.connection, whisperId: actor.string, fields)
                    } else {
                        log.info(name, connId: client.connection.connection, fields)
                    }
                }
                completion(.success(state))
            }
        }
    }

    /// Step 3 of an applied update: everyone who was or is a member hears of it, the caller
    /// by the reply.
    private func announce(_ change: GroupChange, by caller: WhisperID, client: ClientRef,
                          _ completion: @escaping Completion<GroupFrames.State>) {
        let after = change.after
        let state = GroupFrames.State(groupId: after.groupId, title: after.title, memberIds: after.members,
                                      ownerId: after.ownerId, version: after.version, added: change.added, removed: change.removed,
                                      deleted: change.deleted)
        var seen: Set<WhisperID> = [caller]
        let recipients = (change.before.members + change.added).filter { seen.insert($0).inserted }
        announce(.updated, state, by: caller, to: recipients, client: client, completion)
    }
}
