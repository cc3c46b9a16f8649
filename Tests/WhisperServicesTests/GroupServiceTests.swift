import Foundation
import Testing
import WhisperOps
import WhisperProtocol
@testable import WhisperServices

/// `GroupService` over fakes: who `group_get` answers, how `groups_list` pages, and what a
/// change logs at each level (docs/protocol.md "Groups", docs/security.md "What the server logs").
@Suite struct GroupServiceTests {
    @Test func get_answersAMember_andNotFoundAlikeForANonMemberAndAnUnknownGroup() {
        let harness = GroupHarness()
        let owner = WhisperID.random(), member = WhisperID.random(), stranger = WhisperID.random()
        let group = GroupRecord(groupId: .random(), title: "Climbing", ownerId: owner, members: [owner, member], version: 7)
        harness.store.groups[group.groupId] = group
        let info = harness.get(group.groupId, as: member)
        #expect(info == .success(GroupFrames.Info(groupId: group.groupId, title: "Climbing", memberIds: [owner, member],
                                                  ownerId: owner, version: 7)))
        let notMember = harness.get(group.groupId, as: stranger)
        #expect(notMember == .failure(.notFound("unknown group")))
        #expect(harness.get(.random(), as: stranger) == notMember)
    }

    @Test func list_asksForOneMoreThanThePage_andGivesACursorOnlyWhenMoreFollow() throws {
        let harness = GroupHarness()
        let member = WhisperID.random()
        let summaries = (0..<3).map { _ in
            GroupFrames.Summary(groupId: .random(), title: "t", ownerId: member, version: 1)
        }.sorted { $0.groupId.string < $1.groupId.string }
        harness.store.summaries = summaries
        let first = try harness.list(as: member, after: nil, limit: 2).get()
        #expect(first.groups == Array(summaries.prefix(2)))
        #expect(first.nextCursor == summaries[1].groupId)
        #expect(harness.store.listed.last?.limit == 3)
        let last = try harness.list(as: member, after: first.nextCursor, limit: 2).get()
        #expect(last.groups == [summaries[2]])
        #expect(last.nextCursor == nil)
        #expect(harness.store.listed.last?.after == summaries[1].groupId)
    }

    @Test func change_isLoggedAtInfoWithoutItsActor_andWithItOnlyAtDebug() throws {
        for level in [LogLevel.info, .debug] {
            let harness = GroupHarness(level: level)
            let creator = WhisperID.random()
            let created = try harness.create(by: creator, members: [WhisperID.random()]).get()
            let line = try #require(harness.sink.lines.first { $0.contains("\"group_created\"") })
            #expect(line.contains(created.groupId.string))
            #expect(line.contains(creator.string) == (level == .debug), "\(level): \(line)")
        }
    }
}

// MARK: - Harness

final class FakeGroupStore: GroupStore {
    var groups: [GroupID: GroupRecord] = [:]
    var summaries: [GroupFrames.Summary] = []
    var listed: [(after: GroupID?, limit: Int)] = []

    func create(_ group: GroupRecord, completion: @escaping StoreCompletion<GroupCreateOutcome>) {
        groups[group.groupId] = group
        completion(.success(.created))
    }
    func update(_ groupId: GroupID, decide: @escaping @Sendable (GroupRecord) -> Result<GroupChange, GroupRefusal>,
                completion: @escaping StoreCompletion<GroupUpdateOutcome>) {
        completion(.success(.unknownGroup))
    }
    func find(_ groupId: GroupID, completion: @escaping StoreCompletion<GroupRecord?>) {
        completion(.success(groups[groupId]))
    }
    func groups(of member: WhisperID, after: GroupID?, limit: Int,
                completion: @escaping StoreCompletion<[GroupFrames.Summary]>) {
        listed.append((after, limit))
        let rest = summaries.filter { after == nil || $0.groupId.string > (after?.string ?? "") }
        completion(.success(Array(rest.prefix(limit))))
    }
}

final class FakeGroupEvents: GroupEventStore {
    func epoch(of groupId: GroupID, completion: @escaping StoreCompletion<String>) { completion(.success("e1")) }
    func announce(_ groupId: GroupID, deleted: Bool, event: [UInt8], to recipients: [WhisperID],
                  completion: @escaping StoreCompletion<[Routing]>) {
        completion(.success(recipients.map { _ in .remote }))
    }
}

struct GroupHarness {
    let store = FakeGroupStore()
    let sink = MemoryLogSink()
    let service: GroupService
    let client = ClientRef(ip: "192.0.2.7", connection: ConnectionRef(node: "n1", connection: 9))

    init(level: LogLevel = .error) {
        let metrics = WhisperMetrics(registry: MetricsRegistry(), includeProcessMetrics: false)
        let events = FakeGroupEvents()
        let limiter = RateLimiter(limits: .defaults, store: FakeRateLimits(), random: SeededRandom(seed: 1), metrics: metrics)
        service = GroupService(limits: .default, store: store, events: events,
                               directory: GroupDirectory(groups: store, events: events, limits: .default, now: { 0 }),
                               router: FakeRouter(), rateLimiter: limiter, log: Log(level: level, sink: sink))
    }

    func session(_ whisperId: WhisperID) -> SessionRecord {
        SessionRecord(hash: SessionHash(validated: [UInt8](repeating: 0, count: 32)), whisperId: whisperId,
                      deviceId: .random(), platform: .ios, signPublicKey: [UInt8](repeating: 2, count: 32),
                      expiresAtMillis: 1_000)
    }

    func get(_ groupId: GroupID, as caller: WhisperID) -> Result<GroupFrames.Info, ServiceError> {
        var outcome: Result<GroupFrames.Info, ServiceError>?
        let text = #"{"type":"group_get","payload":{"groupId":"\#(groupId.string)"}}"#
        guard let frame = try? InboundFrame.parse(Array(text.utf8), limits: .default),
              let request = try? GroupGetPayload(parsing: frame.payload)
        else { return .failure(.internalFailure("unparsable test frame")) }
        service.get(request, session: session(caller), client: client) { outcome = $0 }
        return outcome ?? .failure(.internalFailure("no completion"))
    }

    func list(as caller: WhisperID, after: GroupID?, limit: Int) -> Result<GroupService.Page, ServiceError> {
        var outcome: Result<GroupService.Page, ServiceError>?
        let cursor = after.map { #","cursor":"\#($0.string)""# } ?? ""
        let text = #"{"type":"groups_list","payload":{"limit":\#(limit)\#(cursor)}}"#
        guard let frame = try? InboundFrame.parse(Array(text.utf8), limits: .default),
              let request = try? GroupsListPayload(parsing: frame.payload, limits: .default)
        else { return .failure(.internalFailure("unparsable test frame")) }
        service.list(request, session: session(caller), client: client) { outcome = $0 }
        return outcome ?? .failure(.internalFailure("no completion"))
    }

    func create(by creator: WhisperID, members: [WhisperID]) -> Result<GroupFrames.State, ServiceError> {
        var outcome: Result<GroupFrames.State, ServiceError>?
        let ids = members.map { #""\#($0.string)""# }.joined(separator: ",")
        let text = #"{"type":"group_create","payload":{"title":"Team","memberIds":[\#(ids)]}}"#
        guard let frame = try? InboundFrame.parse(Array(text.utf8), limits: .default),
              let request = try? GroupCreatePayload(parsing: frame.payload, limits: .default)
        else { return .failure(.internalFailure("unparsable test frame")) }
        service.create(request, session: session(creator), client: client) { outcome = $0 }
        return outcome ?? .failure(.internalFailure("no completion"))
    }
}
