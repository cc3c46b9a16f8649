import Testing
import WhisperOps
import WhisperProtocol
@testable import WhisperServices

/// `BlockService` over in-memory stores: the checks before any store step, PostgreSQL before
/// the Redis copy, how store outcomes map to replies, and the copy's rewrite at login.
@Suite struct BlockServiceTests {
    @Test func block_recordsThePair_thenCopiesIt_andARepeatSucceedsAndCopiesAgain() {
        let harness = BlockHarness()
        #expect(harness.block(harness.bob).isSuccess)
        #expect(harness.store.lists[harness.alice] == [harness.bob])
        #expect(harness.mirror.sets[harness.alice] == [harness.bob])
        // A copy step lost after its commit is healed by the repeat the client makes after INTERNAL_ERROR.
        harness.mirror.sets[harness.alice] = nil
        #expect(harness.block(harness.bob).isSuccess)
        #expect(harness.store.lists[harness.alice] == [harness.bob])
        #expect(harness.mirror.sets[harness.alice] == [harness.bob])
        #expect(harness.rateLimits.charged.map { $0.map(\.action) } == [[.group, .group], [.group, .group]])
    }

    @Test func blockingOneself_isInvalid_beforeAnyStoreStepOrCharge() {
        let harness = BlockHarness()
        #expect(harness.block(harness.alice).failure == .invalidPayload(.invalidValue(field: "whisperId")))
        #expect(harness.store.calls == 0 && harness.mirror.calls == 0 && harness.rateLimits.charged.isEmpty)
    }

    @Test func unknownIdentity_isNotFound_andNothingIsCopied() {
        let harness = BlockHarness()
        #expect(harness.block(WhisperID.random()).failure == .notFound("unknown whisperId"))
        #expect(harness.mirror.calls == 0)
    }

    @Test func theList_holdsTheLimit_atNAndRefusesNPlusOne() {
        let harness = BlockHarness(maxBlocks: 2)
        let others = (0..<3).map { _ in WhisperID.random() }
        harness.store.known.formUnion(others)
        #expect(harness.block(others[0]).isSuccess)
        #expect(harness.block(others[1]).isSuccess)
        #expect(harness.block(others[2]).failure == .invalidPayload(.tooManyItems(field: "blocks", max: 2)))
        #expect(harness.store.lists[harness.alice] == Array(others.prefix(2)))
        #expect(harness.mirror.sets[harness.alice] == Set(others.prefix(2)))
        // Full, a repeat of a recorded block still succeeds; unblocking makes room.
        #expect(harness.block(others[0]).isSuccess)
        #expect(harness.unblock(others[0]).isSuccess)
        #expect(harness.block(others[2]).isSuccess)
    }

    @Test func rateLimited_touchesNoStore() {
        let harness = BlockHarness()
        harness.rateLimits.decision = .limited(retryAfterMs: 1_500)
        #expect(harness.block(harness.bob).failure == .rateLimited(retryAfterMs: 1_500))
        #expect(harness.unblock(harness.bob).failure == .rateLimited(retryAfterMs: 1_500))
        #expect(harness.list().failure == .rateLimited(retryAfterMs: 1_500))
        #expect(harness.store.calls == 0 && harness.mirror.calls == 0)
    }

    @Test func unblock_forgetsThePairInBoth_andSucceedsWhenNothingWasBlocked() {
        let harness = BlockHarness()
        #expect(harness.block(harness.bob).isSuccess)
        #expect(harness.unblock(harness.bob).isSuccess)
        #expect(harness.store.lists[harness.alice] == [])
        #expect(harness.mirror.sets[harness.alice] == [])
        #expect(harness.unblock(WhisperID.random()).isSuccess)
    }

    @Test func list_answersThePostgreSQLList_oldestFirst() {
        let harness = BlockHarness()
        let carol = WhisperID.random()
        harness.store.known.insert(carol)
        _ = harness.block(carol)
        _ = harness.block(harness.bob)
        harness.mirror.sets = [:]
        #expect(harness.list().value == [carol, harness.bob])
    }

    @Test func restore_rewritesTheCopyFromPostgreSQL_evenWhenItIsEmpty() {
        let harness = BlockHarness()
        _ = harness.block(harness.bob)
        harness.mirror.sets[harness.alice] = [WhisperID.random()]
        #expect(harness.restore(harness.alice).value == 1)
        #expect(harness.mirror.sets[harness.alice] == [harness.bob])
        // No blocks: the copy is replaced by nothing (the Redis mirror then leaves no key).
        harness.mirror.sets[harness.bob] = [harness.alice]
        #expect(harness.restore(harness.bob).value == 0)
        #expect(harness.mirror.replaced.last?.blocked == [])
        #expect(harness.mirror.sets[harness.bob] == [])
        #expect(harness.rateLimits.charged.count == 1)
    }

    @Test func failingStores_areInternalErrors_andPostgreSQLComesFirst() {
        let harness = BlockHarness()
        harness.store.failure = .unavailable("down")
        #expect(harness.block(harness.bob).failure == .storage(.unavailable("down")))
        #expect(harness.restore(harness.alice).failure == .storage(.unavailable("down")))
        #expect(harness.mirror.calls == 0)
        harness.store.failure = nil
        harness.mirror.failure = .unavailable("redis down")
        #expect(harness.block(harness.bob).failure == .storage(.unavailable("redis down")))
        #expect(harness.store.lists[harness.alice] == [harness.bob])
    }
}

/// PostgreSQL `blocks` in memory: an ordered list per blocker, `known` the registered ids.
final class FakeBlockStore: BlockStore {
    var lists: [WhisperID: [WhisperID]] = [:]
    var known: Set<WhisperID> = []
    var failure: StoreError?
    var calls = 0

    func add(_ blocked: WhisperID, by blocker: WhisperID, max: Int, completion: @escaping StoreCompletion<BlockOutcome>) {
        calls += 1
        if let failure { return completion(.failure(failure)) }
        let list = lists[blocker, default: []]
        if !known.contains(blocked) { return completion(.success(.unknownIdentity)) }
        if list.contains(blocked) { return completion(.success(.alreadyBlocked)) }
        if list.count >= max { return completion(.success(.full)) }
        lists[blocker] = list + [blocked]
        completion(.success(.added))
    }

    func remove(_ blocked: WhisperID, by blocker: WhisperID, completion: @escaping StoreCompletion<Bool>) {
        calls += 1
        if let failure { return completion(.failure(failure)) }
        let list = lists[blocker, default: []]
        lists[blocker] = list.filter { $0 != blocked }
        completion(.success(list.contains(blocked)))
    }

    func list(of blocker: WhisperID, completion: @escaping StoreCompletion<[WhisperID]>) {
        calls += 1
        if let failure { return completion(.failure(failure)) }
        completion(.success(lists[blocker, default: []]))
    }
}

/// The Redis copy in memory.
final class FakeBlockMirror: BlockMirror {
    var sets: [WhisperID: Set<WhisperID>] = [:]
    var replaced: [(blocker: WhisperID, blocked: [WhisperID])] = []
    var failure: StoreError?
    var calls = 0

    func add(_ blocked: WhisperID, by blocker: WhisperID, completion: @escaping StoreCompletion<Void>) {
        apply(completion) { sets[blocker, default: []].insert(blocked) }
    }

    func remove(_ blocked: WhisperID, by blocker: WhisperID, completion: @escaping StoreCompletion<Void>) {
        apply(completion) { sets[blocker, default: []].remove(blocked) }
    }

    func replace(_ blocked: [WhisperID], of blocker: WhisperID, completion: @escaping StoreCompletion<Void>) {
        apply(completion) {
            replaced.append((blocker, blocked))
            sets[blocker] = Set(blocked)
        }
    }

    private func apply(_ completion: StoreCompletion<Void>, _ change: () -> Void) {
        calls += 1
        if let failure { return completion(.failure(failure)) }
        change()
        completion(.success(()))
    }
}

/// Alice's service, with Bob a registered identity.
struct BlockHarness {
    let store = FakeBlockStore()
    let mirror = FakeBlockMirror()
    let rateLimits = FakeRateLimits()
    let service: BlockService
    let alice = WhisperID.random()
    let bob = WhisperID.random()
    let client = ClientRef(ip: "192.0.2.7", connection: ConnectionRef(node: "n1", connection: 9))

    init(maxBlocks: Int = Limits.default.maxBlocksPerUser) {
        var limits = Limits.default
        limits.maxBlocksPerUser = maxBlocks
        let limiter = RateLimiter(limits: .defaults, store: rateLimits, random: SeededRandom(seed: 3))
        service = BlockService(limits: limits, store: store, mirror: mirror, rateLimiter: limiter,
                               log: Log(level: .debug, sink: MemoryLogSink()))
        store.known = [alice, bob]
    }

    var session: SessionRecord {
        SessionRecord(hash: SessionHash(validated: [UInt8](repeating: 0, count: 32)), whisperId: alice, deviceId: .random(),
                      platform: .ios, signPublicKey: [UInt8](repeating: 2, count: 32), expiresAtMillis: .max)
    }

    func block(_ other: WhisperID) -> Result<Void, ServiceError> {
        run { service.block(other, session: session, client: client, completion: $0) }
    }

    func unblock(_ other: WhisperID) -> Result<Void, ServiceError> {
        run { service.unblock(other, session: session, client: client, completion: $0) }
    }

    func list() -> Result<[WhisperID], ServiceError> {
        run { service.list(session: session, client: client, completion: $0) }
    }

    func restore(_ user: WhisperID) -> Result<Int, ServiceError> {
        run { service.restore(user, completion: $0) }
    }

    private func run<T>(_ body: (@escaping (Result<T, ServiceError>) -> Void) -> Void) -> Result<T, ServiceError> {
        var outcome: Result<T, ServiceError>?
        body { outcome = $0 }
        return outcome ?? .failure(.internalFailure("no completion"))
    }
}

extension Result {
    var value: Success? {
        if case .success(let value) = self { return value }
        return nil
    }
}
