import Foundation
import Testing
import WhisperOps
import WhisperProtocol
import WhisperServices
import WhisperStorage
import WhisperStores
import WhisperTesting

/// The call store on the real 3-primary + 3-replica Redis Cluster that scripts/test starts
/// (`WHISPER_TEST_REDIS_CLUSTER_URL`): in steps of one slot each (`CallStepScripts`), the
/// caller, the callee and the call in three different slots, including a node that dies
/// between two steps — shown by running a signal up to its call's step alone, then the sweep
/// that finishes it — and nothing ringing twice.
@Suite("Call steps on a real Redis Cluster") struct CallStepsClusterTests {
    @Test func offer_login_confirm_ice_answer_hangup_acrossSlots() async throws {
        let cluster = try await CallCluster()
        defer { cluster.close() }
        let (caller, callee, callId) = cluster.parties()

        // The callee is offline: the offer is held.
        let offer = cluster.offer(from: caller, to: callee, callId: callId)
        #expect(try await cluster.initiate(offer) == .routed(.offline, setup: nil))
        // A retry of the same offer rings nothing a second time.
        #expect(try await cluster.initiate(cluster.offer(from: caller, to: callee, callId: callId)) == .notAParty)
        let ice = cluster.signal(.iceCandidate, from: caller, to: callee, callId: callId)
        #expect(try await cluster.signal(ice) == .routed(.offline, setup: nil))

        // The callee logs in on this node: the offer and the held candidate, once.
        let route = try await cluster.goOnline(callee, connection: 1)
        #expect(try await cluster.held(callee) == [offer.frame, ice.frame])
        #expect(try await cluster.held(callee).isEmpty)
        #expect(try await cluster.confirm(callId, callee: callee)
            == .confirmed(caller: caller, routing: .offline, frame: CallEventFrames.ringing(callIdText: offer.callIdText)))
        #expect(try await cluster.confirm(callId, callee: callee) == .repeated)

        let answer = cluster.signal(.answer, from: callee, to: caller, callId: callId)
        #expect(try await cluster.signal(answer) == .routed(.offline, setup: .answered))
        #expect(try await cluster.signal(cluster.signal(.answer, from: caller, to: callee, callId: callId)) == .notAParty)
        let hangup = cluster.signal(.end, from: caller, to: callee, callId: callId)
        #expect(try await cluster.signal(hangup) == .routed(.local(route), setup: nil))
        #expect(try await cluster.signal(cluster.signal(.end, from: callee, to: caller, callId: callId)) == .unknownCall)
        #expect(try await cluster.outbox(callId) == nil)

        // The sweep past the grace finds nothing to deliver, and lets the call go.
        try await Task.sleep(nanoseconds: cluster.graceNanos)
        let sweep = try await cluster.sweep()
        #expect(sweep.ended.isEmpty && sweep.finished.isEmpty)
        #expect(try await cluster.command(["ZSCORE", cluster.keys.callDeadlines, Array(callId.string.utf8)]).string == nil)
    }

    @Test func ringOut_theSweepEndsTheCallOnceForBothParties() async throws {
        let cluster = try await CallCluster()
        defer { cluster.close() }
        let (caller, callee, callId) = cluster.parties()
        let offer = cluster.offer(from: caller, to: callee, callId: callId)
        let start = ContinuousClock.now
        #expect(try await cluster.initiate(offer) == .routed(.offline, setup: nil))

        // Before the deadline the sweep leaves it ringing.
        let (early, beforeDeadline) = try await cluster.sweep(within: cluster.ringTimeout, of: start)
        if beforeDeadline { #expect(early.ended.isEmpty) }
        try await Task.sleep(nanoseconds: cluster.ringNanos)
        let ended = try await early.ended + cluster.sweep().ended
        let timeout = CallEventFrames.timeout(callIdText: offer.callIdText)
        #expect(ended.map(\.frame) == [timeout])
        #expect(try await cluster.keptEvents(caller) == [timeout])
        #expect(try await cluster.keptEvents(callee) == [timeout])
        // Never twice, and the callee's next login finds no offer.
        try await Task.sleep(nanoseconds: cluster.graceNanos)
        let again = try await cluster.sweep()
        #expect(again.ended.isEmpty && again.finished.isEmpty)
        #expect(try await cluster.keptEvents(callee) == [timeout])
        _ = try await cluster.goOnline(callee, connection: 2)
        #expect(try await cluster.held(callee).isEmpty)
    }

    @Test func nodeDiesAfterClaimingARungOutCall_theNextSweepEndsItAfterTheLease() async throws {
        let cluster = try await CallCluster()
        defer { cluster.close() }
        let (caller, callee, callId) = cluster.parties()
        let offer = cluster.offer(from: caller, to: callee, callId: callId)
        #expect(try await cluster.initiate(offer) == .routed(.offline, setup: nil))
        try await Task.sleep(nanoseconds: cluster.ringNanos)

        // A node claims it and dies: within the lease nobody else has it.
        let start = ContinuousClock.now
        #expect(try await cluster.loop.result { done in cluster.store.claimDueCalls(completion: done) } == [callId])
        let (early, inLease) = try await cluster.sweep(within: cluster.lease, of: start)
        if inLease {
            #expect(early.ended.isEmpty)
            #expect(try await cluster.keptEvents(caller).isEmpty)
        }
        // The lease (twice the grace) lapses: the next sweep ends the call, once.
        try await Task.sleep(nanoseconds: 2 * cluster.graceNanos)
        let ended = try await early.ended + cluster.sweep().ended
        #expect(ended.map(\.frame) == [CallEventFrames.timeout(callIdText: offer.callIdText)])
        #expect(try await cluster.sweep().ended.isEmpty)
        #expect(try await cluster.keptEvents(caller).count == 1)
        #expect(try await cluster.keptEvents(callee).count == 1)
    }

    /// The confirmation push is claimed for a lease, on a cluster and on one Redis alike: a
    /// node that claims an unconfirmed offer and dies before handing the push over leaves it
    /// to the next sweep after the lease; settling drops the entry, a stale claim's settle not.
    @Test(arguments: [false, true])
    func nodeDiesAfterClaimingAnUnconfirmedOffer_theNextSweepPushesAfterTheLease(standalone: Bool) async throws {
        let cluster = try await CallCluster(standalone: standalone)
        defer { cluster.close() }
        let (caller, callee, callId) = cluster.parties()
        _ = try await cluster.goOnline(callee, connection: 4)
        let offer = cluster.offer(from: caller, to: callee, callId: callId)
        guard case .routed(.local, _) = try await cluster.initiate(offer) else {
            Issue.record("the offer did not go to the callee's socket")
            return
        }
        // Its confirmation deadline passes with no `call_received`.
        let entry = Array(callId.string.utf8)
        try await cluster.command(["ZADD", cluster.keys.callConfirmDeadlines, "1", entry])

        let start = ContinuousClock.now
        let first = try await cluster.sweep().unconfirmed
        #expect(first.map(\.callee) == [callee])
        #expect(first.map(\.callIdText) == [offer.callIdText])
        // The node dies here: within the lease nobody else pushes.
        let (early, inLease) = try await cluster.sweep(within: cluster.lease, of: start)
        if inLease { #expect(early.unconfirmed.isEmpty) }
        var second = early.unconfirmed
        if second.isEmpty {
            try await Task.sleep(nanoseconds: 2 * cluster.graceNanos)
            second = try await cluster.sweep().unconfirmed
        }
        #expect(second.map(\.callId) == [callId])
        // The dead node's claim is stale: its settle leaves the entry; the live one's drops it.
        let firstClaim = try #require(first.first)
        let secondClaim = try #require(second.first)
        try await cluster.loop.result { done in cluster.store.settle(firstClaim, completion: done) }
        #expect(try await cluster.command(["ZSCORE", cluster.keys.callConfirmDeadlines, entry]).string != nil)
        try await cluster.loop.result { done in cluster.store.settle(secondClaim, completion: done) }
        #expect(try await cluster.command(["ZSCORE", cluster.keys.callConfirmDeadlines, entry]).string == nil)
        try await Task.sleep(nanoseconds: 2 * cluster.graceNanos)
        #expect(try await cluster.sweep().unconfirmed.isEmpty)
    }

    @Test func remoteParties_getThePublishedFrames() async throws {
        let cluster = try await CallCluster()
        defer { cluster.close() }
        let (caller, callee, callId) = cluster.parties()
        let otherNode = "0ther" + String(UInt32.random(in: 0...UInt32.max), radix: 16)
        try await cluster.command(["SET", cluster.keys.route(callee), Array("\(otherNode):0:7".utf8)])
        try await cluster.command(["SET", cluster.keys.route(caller), Array("\(otherNode):0:8".utf8)])

        // Nobody listens on that node: offline (the service pushes), and no confirmation deadline.
        let unheard = cluster.offer(from: caller, to: callee, callId: callId)
        #expect(try await cluster.initiate(unheard) == .routed(.offline, setup: nil))
        #expect(try await cluster.command(["ZSCORE", cluster.keys.callConfirmDeadlines, Array(callId.string.utf8)]).string == nil)

        let inbox = try await cluster.stores.subscribe(cluster.keys.deliveryChannel(otherNode))
        defer { inbox.close() }
        let (_, _, heardId) = cluster.parties()
        let offer = cluster.offer(from: caller, to: callee, callId: heardId)
        #expect(try await cluster.initiate(offer) == .routed(.remote, setup: nil))
        let notice = try #require(await inbox.next())
        #expect(String(decoding: notice, as: UTF8.self).hasPrefix("\(otherNode):0:7 \(callee.string) s "))
        #expect(notice.suffix(offer.frame.count) == ArraySlice(offer.frame))
        inbox.drop(notice)
        #expect(try await cluster.command(["ZSCORE", cluster.keys.callConfirmDeadlines, Array(heardId.string.utf8)]).string != nil)

        let answer = cluster.signal(.answer, from: callee, to: caller, callId: heardId)
        #expect(try await cluster.signal(answer) == .routed(.remote, setup: .answered))
        let answered = try #require(await inbox.next())
        #expect(String(decoding: answered, as: UTF8.self).hasPrefix("\(otherNode):0:8 \(caller.string) s "))
        #expect(answered.suffix(answer.frame.count) == ArraySlice(answer.frame))
    }

    @Test func nodeDiesAfterTheHangupsCallStep_theSweepDeliversItOnce() async throws {
        let cluster = try await CallCluster()
        defer { cluster.close() }
        let (caller, callee, callId) = cluster.parties()
        #expect(try await cluster.initiate(cluster.offer(from: caller, to: callee, callId: callId)) == .routed(.offline, setup: nil))

        // The caller hangs up; the node stores it and dies before routing it.
        let hangup = cluster.signal(.end, from: caller, to: callee, callId: callId)
        let start = ContinuousClock.now
        guard case .route(.failed, let number) = try await cluster.storeOnly(hangup), number > 0 else {
            Issue.record("the hangup's call step did not leave an outbox")
            return
        }
        #expect(try await cluster.keptEvents(callee).isEmpty)
        // Within the grace the sweep leaves it to the node that stored it.
        let (early, inGrace) = try await cluster.sweep(within: cluster.grace, of: start)
        if inGrace { #expect(early.finished.isEmpty) }
        try await Task.sleep(nanoseconds: cluster.graceNanos)
        let sweep = try await cluster.sweep()
        #expect(early.ended.isEmpty && sweep.ended.isEmpty)
        #expect((early.finished + sweep.finished).map(\.frame) == [hangup.frame])
        #expect(try await cluster.keptEvents(callee) == [hangup.frame])
        #expect(try await cluster.outbox(callId) == nil)
        // Not again, and the call did not ring out on top of it.
        try await Task.sleep(nanoseconds: cluster.ringNanos)
        let later = try await cluster.sweep()
        #expect(later.ended.isEmpty && later.finished.isEmpty)
        #expect(try await cluster.keptEvents(callee) == [hangup.frame])
        #expect(try await cluster.keptEvents(caller).isEmpty)
    }

    @Test func nodeDiesAfterTheAnswersCallStep_theSweepPublishesTheAnswer() async throws {
        let cluster = try await CallCluster()
        defer { cluster.close() }
        let (caller, callee, callId) = cluster.parties()
        let (otherNode, inbox) = try await cluster.onAnotherNode(caller)
        defer { inbox.close() }
        #expect(try await cluster.initiate(cluster.offer(from: caller, to: callee, callId: callId)) == .routed(.offline, setup: nil))

        let answer = cluster.signal(.answer, from: callee, to: caller, callId: callId)
        guard case .route(.answered, _) = try await cluster.storeOnly(answer) else {
            Issue.record("the answer's call step did not answer")
            return
        }
        try await Task.sleep(nanoseconds: cluster.graceNanos)
        let sweep = try await cluster.sweep()
        #expect(sweep.finished.map(\.frame) == [answer.frame])
        let notice = try #require(await inbox.next())
        #expect(String(decoding: notice, as: UTF8.self).hasPrefix("\(otherNode):1:9 \(caller.string) s "))
        #expect(notice.suffix(answer.frame.count) == ArraySlice(answer.frame))
        // Answered: it does not ring out.
        try await Task.sleep(nanoseconds: cluster.ringNanos)
        #expect(try await cluster.sweep().ended.isEmpty)
        #expect(try await cluster.keptEvents(caller).isEmpty)
    }

    @Test func nodeDiesAfterTheConfirmationsCallStep_theSweepSendsCallRinging_andTheCallStillRingsOut() async throws {
        let cluster = try await CallCluster()
        defer { cluster.close() }
        let (caller, callee, callId) = cluster.parties()
        let (otherNode, inbox) = try await cluster.onAnotherNode(caller)
        defer { inbox.close() }
        let offer = cluster.offer(from: caller, to: callee, callId: callId)
        #expect(try await cluster.initiate(offer) == .routed(.offline, setup: nil))
        _ = try await cluster.goOnline(callee, connection: 1)
        #expect(try await cluster.held(callee) == [offer.frame])

        // The callee's device confirms; the node stores it and dies before telling the caller.
        let start = ContinuousClock.now
        guard case .route(caller, let ringing, let number) = try await cluster.storeConfirmationOnly(callId, callee: callee),
              number > 0 else {
            Issue.record("the confirmation's call step did not leave call_ringing in the outbox")
            return
        }
        #expect(ringing == CallEventFrames.ringing(callIdText: offer.callIdText))
        // A retry of the confirmation tells nobody again: the sweep is what sends it.
        #expect(try await cluster.confirm(callId, callee: callee) == .repeated)
        let (early, inGrace) = try await cluster.sweep(within: cluster.grace, of: start)
        if inGrace { #expect(early.finished.isEmpty) }
        try await Task.sleep(nanoseconds: cluster.graceNanos)
        let sweep = try await cluster.sweep()
        #expect(early.ended.isEmpty && sweep.ended.isEmpty)
        #expect((early.finished + sweep.finished).map(\.frame) == [ringing])
        let notice = try #require(await inbox.next())
        #expect(String(decoding: notice, as: UTF8.self).hasPrefix("\(otherNode):1:9 \(caller.string) s "))
        #expect(notice.suffix(ringing.count) == ArraySlice(ringing))
        #expect(try await cluster.outbox(callId) == nil)
        // Still ringing: unanswered, it rings out at its deadline all the same.
        try await Task.sleep(nanoseconds: cluster.ringNanos)
        let later = try await cluster.sweep()
        #expect(later.ended.count == 1)
        #expect(later.finished.isEmpty)
    }

    @Test func aBlockMadeWhileTheOfferWasHeld_hidesTheCallFromTheCallee() async throws {
        let cluster = try await CallCluster()
        defer { cluster.close() }
        let (caller, callee, callId) = cluster.parties()
        #expect(try await cluster.initiate(cluster.offer(from: caller, to: callee, callId: callId)) == .routed(.offline, setup: nil))
        try await cluster.command(["SADD", cluster.keys.blocked(callee), Array(caller.string.utf8)])
        _ = try await cluster.goOnline(callee, connection: 3)
        #expect(try await cluster.held(callee).isEmpty)
        #expect(try await cluster.signal(cluster.signal(.answer, from: callee, to: caller, callId: callId)) == .unknownCall)
        // A new offer of the blocked caller rings for the caller alone.
        let (_, _, next) = cluster.parties()
        #expect(try await cluster.initiate(cluster.offer(from: caller, to: callee, callId: next)) == .dropped(setup: nil))
        #expect(try await cluster.signal(cluster.signal(.end, from: caller, to: callee, callId: next)) == .dropped(setup: .failed))
        // The first rings out for the caller only.
        try await Task.sleep(nanoseconds: cluster.ringNanos)
        #expect(try await cluster.sweep().ended.count == 1)
        #expect(try await cluster.keptEvents(callee).isEmpty)
        #expect(try await cluster.keptEvents(caller).count == 1)
    }
}

/// The call store on a `ClusterStores`, with a ring timeout of 15 s and an outbox grace of 5 s.
/// A check that a sweep leaves something alone within one of them is made only when the sweep
/// surely ran within it (`sweep(within:of:)`): the whole suite's load on two cores has starved
/// a test past a 5 s grace before its first check.
private final class CallCluster: @unchecked Sendable {
    let stores: ClusterStores
    let store: RedisCallStore
    let limiter: RateLimiter
    static let graceSeconds: Int64 = 5, ringTimeoutSeconds: Int64 = 15
    let grace = Duration.seconds(graceSeconds)
    /// A claimed sweep's lease: twice the grace.
    var lease: Duration { grace * 2 }
    let ringTimeout = Duration.seconds(ringTimeoutSeconds)
    /// Past the grace.
    let graceNanos = UInt64(graceSeconds) * 1_000_000_000 + 100_000_000
    /// Past the ring timeout.
    let ringNanos = UInt64(ringTimeoutSeconds) * 1_000_000_000 + 200_000_000
    var loop: TestLoop { stores.loop }
    var keys: RedisKeys { stores.keys }

    init(standalone: Bool = false) async throws {
        stores = try await ClusterStores(standalone: standalone)
        var limits = stores.limits
        limits.callRingTimeoutSeconds = Self.ringTimeoutSeconds
        store = RedisCallStore(redis: stores.redis, keys: stores.keys, node: stores.node, limits: limits,
                               outboxGraceMillis: Self.graceSeconds * 1_000)
        limiter = RateLimiter(limits: RateLimits.defaults, store: RedisRateLimitStore(redis: stores.redis, keys: stores.keys))
    }

    func close() { stores.close() }
    @discardableResult
    func command(_ arguments: [Any]) async throws -> RedisValue { try await stores.command(arguments) }

    /// A caller, a callee and a call id, all three in different slots.
    func parties() -> (WhisperID, WhisperID, CanonicalUUID) {
        while true {
            let (caller, callee, callId) = (WhisperID.random(), WhisperID.random(), CanonicalUUID.random())
            let slots: Set = [PendingSlots.slot(of: caller), PendingSlots.slot(of: callee), RedisSlot.of(callId.string.utf8)]
            if slots.count == 3 { return (caller, callee, callId) }
        }
    }

    private func charge(_ from: WhisperID) -> RateLimitCharge {
        limiter.charge(.call, subjects: [.identity(from.string), .ip("192.0.2.20")])
    }

    func offer(from caller: WhisperID, to callee: WhisperID, callId: CanonicalUUID) -> CallOffer {
        CallOffer(caller: caller, callee: callee, callId: callId, callIdText: callId.string.uppercased(),
                  frame: Array("{\"type\":\"call_initiate\",\"n\":\"\(UUID().uuidString)\"}".utf8), rateLimit: charge(caller))
    }

    func signal(_ kind: CallSignalKind, from: WhisperID, to: WhisperID, callId: CanonicalUUID) -> CallSignal {
        CallSignal(kind: kind, from: from, to: to, callId: callId,
                   frame: Array("{\"type\":\"\(kind.rawValue)\",\"n\":\"\(UUID().uuidString)\"}".utf8), rateLimit: charge(from))
    }

    func initiate(_ offer: CallOffer) async throws -> CallStoreOutcome {
        try await loop.result { done in self.store.initiate(offer, completion: done) }
    }

    func signal(_ signal: CallSignal) async throws -> CallStoreOutcome {
        try await loop.result { done in self.store.signal(signal, completion: done) }
    }

    /// A signal up to its call's step, as a node that dies right after it leaves it.
    func storeOnly(_ signal: CallSignal) async throws -> RedisCallStore.SignalStep {
        try await loop.result { done in self.store.storeSignal(signal, completion: done) }
    }

    /// `user`'s route names another node (at `<node>:1:9`), whose delivery channel the returned
    /// inbox hears.
    func onAnotherNode(_ user: WhisperID) async throws -> (node: String, inbox: ClusterInbox) {
        let node = "0ther" + String(UInt32.random(in: 0...UInt32.max), radix: 16)
        try await command(["SET", keys.route(user), Array("\(node):1:9".utf8)])
        return (node, try await stores.subscribe(keys.deliveryChannel(node)))
    }

    /// A confirmation up to its call's step, as a node that dies right after it leaves it.
    func storeConfirmationOnly(_ callId: CanonicalUUID, callee: WhisperID) async throws -> RedisCallStore.ConfirmationStep {
        try await loop.result { done in self.store.storeConfirmation(callId, callee: callee, completion: done) }
    }

    func confirm(_ callId: CanonicalUUID, callee: WhisperID) async throws -> CallConfirmation {
        try await loop.result { done in self.store.confirm(callId, callee: callee, completion: done) }
    }

    func held(_ user: WhisperID) async throws -> [[UInt8]] {
        try await loop.result { done in self.store.heldCalls(for: user, completion: done) }
    }

    func sweep() async throws -> CallSweep {
        try await loop.result { done in self.store.sweep(completion: done) }
    }

    /// A sweep, and whether it surely ran before `window` passed since `start` (taken before
    /// the step that opened the window). When not, what it found belongs to the later sweep.
    func sweep(within window: Duration, of start: ContinuousClock.Instant) async throws -> (CallSweep, Bool) {
        let result = try await sweep()
        return (result, ContinuousClock.now - start < window)
    }

    /// `user`'s socket on this node.
    func goOnline(_ user: WhisperID, connection: UInt64) async throws -> LiveRoute {
        let route = LiveRoute(node: stores.node, loop: 0, connection: connection)
        try await command(["SET", keys.route(user), Array(route.text.utf8)])
        return route
    }

    func keptEvents(_ user: WhisperID) async throws -> [[UInt8]] {
        (try await command(["LRANGE", keys.events(user), "0", "-1"]).array ?? []).compactMap(\.bytes)
    }

    /// The call's outbox frame, nil when none is waiting.
    func outbox(_ callId: CanonicalUUID) async throws -> [UInt8]? {
        try await command(["HGET", keys.call(callId), "of"]).bytes
    }
}
