import WhisperOps
import WhisperProtocol

/// Account deletion (docs/protocol.md "delete_account → account_deleted"): what app stores
/// require, a user removing its identity from the server for good. One instance per event
/// loop; every completion runs on that loop.
///
/// `delete_account {whisperId, timestamp, sig}`, top to bottom (the gateway checked the
/// session, the handler the payload's shape):
/// 1. `whisperId` is the session's → else `FORBIDDEN`; `timestamp` within ±10 min → else
///    `INVALID_TIMESTAMP`; `sig` verifies with the session's (the identity's) Ed25519 key
///    over SHA-256 of the canonical bytes → else `AUTH_FAILED`. A stolen session token alone
///    cannot delete an account, and a captured frame is useless ten minutes later;
/// 2. the identity leaves each of its groups as `group_update` would have it (`GroupDeparture`:
///    the other members get `group_event`, ownership is handed on, the last member deletes
///    the group);
/// 3. in one PostgreSQL transaction (`AccountRecordStore.remove`): its id is retired for good,
///    its keys, devices (push tokens), contacts backup are deleted, its attachments become
///    collectable, one `audit_events` row is written. Should a group have added it back
///    since step 2, nothing is removed and step 2 runs again for that group;
/// 4. its pending queue, kept events and direct-peer list go (`AccountQueueStore.purge`);
/// 5. every session of it dies, on every node: sockets get `session_revoked
///    {reason:"account_deleted"}` and close 4004 — except the socket that asked, which the
///    handler answers `account_deleted` and then closes.
///
/// Every step is idempotent, and the session dies only in the last one: after a failure
/// (`INTERNAL_ERROR`) or a crash half-way the client sends the same frame again with the same
/// session (a fresh timestamp and signature if ten minutes have passed) and the deletion
/// completes; two copies of the frame in flight both complete.
public final class AccountDeletionService {
    public typealias Completion<T> = (Result<T, ServiceError>) -> Void

    /// What a completed deletion did (for the log; nothing of it goes to the client).
    public struct Deletion: Sendable, Equatable {
        public let groupsLeft: Int
        public let queuedMessages: Int
        public let revokedSessions: Int
    }

    /// Rounds of "leave the groups, remove the records" before giving up: a round repeats only
    /// when a group added the identity back in between (`INTERNAL_ERROR` after the last).
    static let maxRounds = 4

    private let limits: Limits
    private let records: AccountRecordStore
    private let queues: AccountQueueStore
    private let sessions: SessionStore
    private let groups: GroupDeparture
    private let verifier: SignatureVerifier
    private let log: Log
    private let now: () -> Int64

    public init(limits: Limits, records: AccountRecordStore, queues: AccountQueueStore, sessions: SessionStore,
                groups: GroupDeparture, verifier: SignatureVerifier, log: Log, now: @escaping () -> Int64) {
        self.limits = limits
        self.records = records
        self.queues = queues
        self.sessions = sessions
        self.groups = groups
        self.verifier = verifier
        self.log = log
        self.now = now
    }

    public func delete(_ request: DeleteAccountPayload, session: SessionRecord, client: ClientRef,
                       completion: @escaping Completion<Deletion>) {
        if let refusal = verifier.refusal(from: request.whisperId, timestamp: request.timestamp, signature: request.signature,
                                          signedBytes: request.signedBytes, session: session,
                                          skewMillis: limits.timestampSkewMillis, nowMillis: now()) {
            return completion(.failure(refusal))
        }
        removeRecords(of: session.whisperId, client: client, round: 1, groupsLeft: 0, completion)
    }

    /// Steps 2–3: try to remove the records; while the identity is still in groups, leave
    /// them and try again.
    private func removeRecords(of whisperId: WhisperID, client: ClientRef, round: Int, groupsLeft: Int,
                               _ completion: @escaping Completion<Deletion>) {
        records.remove(whisperId) { [self] result in
            switch result {
            case .failure(let error):
                completion(.failure(.storage(error)))
            case .success(.memberOf(let memberships)):
                guard round < Self.maxRounds else {
                    return completion(.failure(.internalFailure("still a group member after \(Self.maxRounds) rounds")))
                }
                leave(memberships[...], member: whisperId, client: client) { [self] left in
                    if case .failure(let error) = left { return completion(.failure(error)) }
                    removeRecords(of: whisperId, client: client, round: round + 1,
                                  groupsLeft: groupsLeft + memberships.count, completion)
                }
            case .success(.removed):
                purgeQueues(of: whisperId, client: client, groupsLeft: groupsLeft, completion)
            }
        }
    }

    /// Step 2, one group after the other.
    private func leave(_ remaining: ArraySlice<GroupID>, member: WhisperID, client: ClientRef,
                       _ completion: @escaping Completion<Void>) {
        guard let groupId = remaining.first else { return completion(.success(())) }
        groups.leave(groupId, member: member, client: client) { [self] result in
            if case .failure(let error) = result { return completion(.failure(error)) }
            leave(remaining.dropFirst(), member: member, client: client, completion)
        }
    }

    /// Step 4.
    private func purgeQueues(of whisperId: WhisperID, client: ClientRef, groupsLeft: Int,
                             _ completion: @escaping Completion<Deletion>) {
        queues.purge(whisperId) { [self] result in
            switch result {
            case .failure(let error):
                completion(.failure(.storage(error)))
            case .success(let queued):
                revokeSessions(of: whisperId, client: client, groupsLeft: groupsLeft, queued: queued, completion)
            }
        }
    }

    /// Step 5, last: until here the client can repeat the frame with its session.
    private func revokeSessions(of whisperId: WhisperID, client: ClientRef, groupsLeft: Int, queued: Int,
                                _ completion: @escaping Completion<Deletion>) {
        sessions.revokeAll(of: whisperId, reason: .accountDeleted, origin: client.connection) { [self] result in
            switch result {
            case .failure(let error):
                completion(.failure(.storage(error)))
            case .success(let hashes):
                log.info("account_deleted", connId: client.connection.connection, whisperId: whisperId.string,
                         ["groupsLeft": .int(groupsLeft), "queuedMessages": .int(queued)])
                completion(.success(Deletion(groupsLeft: groupsLeft, queuedMessages: queued, revokedSessions: hashes.count)))
            }
        }
    }
}
