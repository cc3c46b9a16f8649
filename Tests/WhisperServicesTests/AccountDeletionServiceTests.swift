import Testing
import WhisperOps
import WhisperProtocol
@testable import WhisperServices

/// `AccountDeletionService` over in-memory stores: the checks before any I/O, the order of
/// the steps (groups left before the records go, sessions revoked last), and retries.
@Suite struct AccountDeletionServiceTests {
    init() throws { try Sodium.initialize() }

    @Test func deletion_leavesEachGroup_thenRemovesRecords_purgesQueues_andRevokesSessionsLast() throws {
        let harness = DeletionHarness()
        let (g1, g2) = (GroupID.random(), GroupID.random())
        harness.records.memberships[harness.id] = [g1, g2]
        harness.queues.queued[harness.id] = 3
        let deletion = try harness.delete(harness.request()).get()
        #expect(deletion == AccountDeletionService.Deletion(groupsLeft: 2, queuedMessages: 3, revokedSessions: 1))
        #expect(harness.groups.left == [g1, g2])
        #expect(harness.steps == ["remove:memberOf", "leave", "leave", "remove:removed", "purge", "revoke"])
        #expect(harness.records.retired == [harness.id] && harness.records.audits == 1)
        #expect(harness.sessions.records.isEmpty)
        let notice = try #require(harness.sessions.notices.last)
        #expect(notice.reason == .accountDeleted && notice.whisperId == harness.id.string)
        #expect(notice.origin == harness.client.connection, "the asking socket is answered by its handler, not the notice")
    }

    @Test func refusals_comeBeforeAnyStoreIsTouched() throws {
        let harness = DeletionHarness()
        var other = harness.request(whisperId: WhisperID.random())
        #expect(harness.delete(other).failure?.code == .forbidden)
        other = harness.request(timestamp: DeletionHarness.now - 600_001)
        #expect(harness.delete(other).failure == .invalidTimestamp)
        other = harness.request(timestamp: DeletionHarness.now + 600_001)
        #expect(harness.delete(other).failure == .invalidTimestamp)
        // Signed by another key, or over another frame's bytes.
        let stranger = TestKey(seed: 99)
        var forged = harness.request()
        forged = DeleteAccountPayload(whisperId: forged.whisperId, timestamp: forged.timestamp,
                                      signature: stranger.sign(Sodium.sha256(forged.signedBytes())))
        #expect(harness.delete(forged).failure == .authFailed(.badSignature))
        let unhashed = DeleteAccountPayload(whisperId: harness.id, timestamp: DeletionHarness.now,
                                            signature: harness.key.sign(harness.request().signedBytes()))
        #expect(harness.delete(unhashed).failure == .authFailed(.badSignature))
        #expect(harness.steps.isEmpty)
        #expect(harness.sessions.records.count == 1)
        // At the edge of the window it goes through.
        #expect(throws: Never.self) { try harness.delete(harness.request(timestamp: DeletionHarness.now - 600_000)).get() }
    }

    @Test func aGroupAddingTheIdentityBack_isLeftInAnotherRound() throws {
        let harness = DeletionHarness()
        let (g1, g2) = (GroupID.random(), GroupID.random())
        harness.records.memberships[harness.id] = [g1]
        harness.groups.afterLeave = {
            harness.records.memberships[harness.id, default: []].append(g2)
            harness.groups.afterLeave = nil
        }
        _ = try harness.delete(harness.request()).get()
        #expect(harness.groups.left == [g1, g2])
        #expect(harness.records.retired == [harness.id])
    }

    @Test func aGroupThatKeepsAddingItBack_endsInAnInternalError_withTheSessionAlive() {
        let harness = DeletionHarness()
        harness.records.memberships[harness.id] = [GroupID.random()]
        harness.groups.afterLeave = { harness.records.memberships[harness.id, default: []].append(GroupID.random()) }
        #expect(harness.delete(harness.request()).failure?.code == .internalError)
        #expect(harness.groups.left.count == AccountDeletionService.maxRounds - 1)
        #expect(harness.records.retired.isEmpty && harness.sessions.records.count == 1)
    }

    @Test func aFailureHalfWay_keepsTheSession_soTheSameFrameAgainCompletes_withOneAuditRow() throws {
        let harness = DeletionHarness()
        harness.records.memberships[harness.id] = [GroupID.random()]
        harness.queues.queued[harness.id] = 2
        harness.queues.failure = .unavailable("redis down")
        let request = harness.request()
        #expect(harness.delete(request).failure == .storage(.unavailable("redis down")))
        #expect(harness.records.retired == [harness.id], "the records went before the failure")
        #expect(harness.sessions.records.count == 1, "the session survives, so the client can repeat the frame")

        harness.queues.failure = nil
        let retried = try harness.delete(request).get()
        #expect(retried.queuedMessages == 2 && retried.revokedSessions == 1)
        #expect(harness.records.audits == 1, "the audit row is written once")
        // A copy of the frame that was still in flight completes too, changing nothing.
        let repeated = try harness.delete(request).get()
        #expect(repeated == AccountDeletionService.Deletion(groupsLeft: 0, queuedMessages: 0, revokedSessions: 0))
        #expect(harness.records.audits == 1)
    }

    @Test func aGroupStoreFailure_stopsBeforeTheRecordsGo() {
        let harness = DeletionHarness()
        harness.records.memberships[harness.id] = [GroupID.random()]
        harness.groups.failure = .storage(.unavailable("pg down"))
        #expect(harness.delete(harness.request()).failure?.code == .internalError)
        #expect(harness.records.retired.isEmpty && harness.sessions.records.count == 1)
    }
}

/// The service over fakes, with one live session of the identity.
final class DeletionHarness {
    static let now: Int64 = 1_763_820_000_000
    let key = TestKey(seed: 21)
    let id = WhisperID.random()
    let client = ClientRef(ip: "192.0.2.9", connection: ConnectionRef(node: "n1", connection: 4))
    let records = FakeAccountRecords()
    let queues = FakeAccountQueues()
    let sessions = FakeSessions()
    let groups = FakeGroupDeparture()
    let session: SessionRecord
    var steps: [String] { records.log.steps }
    private let service: AccountDeletionService

    init() {
        let log = StepLog()
        records.log = log
        queues.log = log
        groups.log = log
        sessions.onRevoke = { log.steps.append("revoke") }
        groups.records = records
        let token = SessionToken.generate(using: SeededRandom(seed: 5))
        session = SessionRecord(hash: token.hash, whisperId: id, deviceId: .random(), platform: .ios,
                                signPublicKey: key.publicKey, expiresAtMillis: Self.now + 1_000_000)
        sessions.records[session.hash] = session
        service = AccountDeletionService(limits: .default, records: records, queues: queues, sessions: sessions, groups: groups,
                                         verifier: SignatureVerifier(histogram: nil), log: Log(level: .error, sink: MemoryLogSink()),
                                         now: { DeletionHarness.now })
    }

    /// A correctly signed request, unless the arguments say otherwise.
    func request(whisperId: WhisperID? = nil, timestamp: Int64 = DeletionHarness.now) -> DeleteAccountPayload {
        let target = whisperId ?? id
        let bytes = DeleteAccountPayload.signedBytes(whisperId: target, timestampMillis: timestamp)
        return DeleteAccountPayload(whisperId: target, timestamp: timestamp, signature: key.sign(Sodium.sha256(bytes)))
    }

    func delete(_ request: DeleteAccountPayload) -> Result<AccountDeletionService.Deletion, ServiceError> {
        var outcome: Result<AccountDeletionService.Deletion, ServiceError>?
        service.delete(request, session: session, client: client) { outcome = $0 }
        return outcome ?? .failure(.internalFailure("no completion"))
    }
}

final class StepLog {
    var steps: [String] = []
}

final class FakeAccountRecords: AccountRecordStore {
    var memberships: [WhisperID: [GroupID]] = [:]
    var retired: [WhisperID] = []
    var audits = 0
    var log = StepLog()

    func remove(_ whisperId: WhisperID, completion: @escaping StoreCompletion<AccountRemoval>) {
        if let groups = memberships[whisperId], !groups.isEmpty {
            log.steps.append("remove:memberOf")
            return completion(.success(.memberOf(groups)))
        }
        log.steps.append("remove:removed")
        let firstTime = !retired.contains(whisperId)
        if firstTime {
            retired.append(whisperId)
            audits += 1
        }
        completion(.success(.removed(firstTime: firstTime)))
    }
}

final class FakeAccountQueues: AccountQueueStore {
    var queued: [WhisperID: Int] = [:]
    var failure: StoreError?
    var log = StepLog()

    func purge(_ whisperId: WhisperID, completion: @escaping StoreCompletion<Int>) {
        if let failure { return completion(.failure(failure)) }
        log.steps.append("purge")
        completion(.success(queued.removeValue(forKey: whisperId) ?? 0))
    }
}

final class FakeGroupDeparture: GroupDeparture {
    var left: [GroupID] = []
    var failure: ServiceError?
    /// Runs after each leave (a group adding the identity back).
    var afterLeave: (() -> Void)?
    var records: FakeAccountRecords?
    var log = StepLog()

    func leave(_ groupId: GroupID, member: WhisperID, client: ClientRef,
               completion: @escaping (Result<GroupFrames.State?, ServiceError>) -> Void) {
        if let failure { return completion(.failure(failure)) }
        log.steps.append("leave")
        left.append(groupId)
        records?.memberships[member]?.removeAll { $0 == groupId }
        afterLeave?()
        completion(.success(nil))
    }
}
