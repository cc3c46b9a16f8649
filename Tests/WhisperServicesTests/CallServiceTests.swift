import Foundation
import Testing
import WhisperOps
import WhisperProtocol
@testable import WhisperServices
import WhisperTesting

/// `CallService` over fakes: what an offer asks of push and of the router — the callee's call
/// push carries the `callId` as the caller spelt it (contract §15), a callee who blocked
/// the caller is neither written to nor woken (docs/protocol.md "Blocking"), the callee's
/// confirmation rings the caller, and the sweep pushes callees that did not confirm.
@Suite struct CallServiceTests {
    @Test func offerToAnOfflineCallee_ringsWithTheCallIdAsTheCallerSpeltIt() throws {
        let harness = CallHarness()
        let spelt = "0F8FAD5B-D9CB-469F-A165-70867728950E"
        try harness.signal(.initiate, callId: spelt).get()
        #expect(harness.wakeUps.rings.map(\.callIdText) == [spelt])
        #expect(harness.wakeUps.rings.map(\.callee) == [harness.callee])
        // The call's state is still keyed by the lower-case id.
        #expect(harness.store.offers.map(\.callId.string) == [spelt.lowercased()])
    }

    @Test func offerToALiveLookingCallee_pushesNothingAtOnce() throws {
        let harness = CallHarness()
        harness.store.outcome = .routed(.remote, setup: nil)
        try harness.signal(.initiate).get()
        #expect(harness.wakeUps.rings.isEmpty)
    }

    @Test func anOfflineCallee_isRung_butOneWhoBlockedTheCaller_isNot() throws {
        let harness = CallHarness()
        try harness.signal(.initiate).get()
        #expect(harness.wakeUps.rings.map(\.callee) == [harness.callee])
        harness.store.outcome = .dropped(setup: nil)
        try harness.signal(.initiate).get()
        #expect(harness.wakeUps.rings.count == 1)
        #expect(harness.router.deliveries.isEmpty)
    }

    @Test func aLiveCallee_isWrittenTo_butNotWhenItBlockedTheCaller() throws {
        let harness = CallHarness()
        harness.store.outcome = .dropped(setup: nil)
        try harness.signal(.initiate).get()
        try harness.signal(.iceCandidate).get()
        #expect(harness.router.deliveries.isEmpty)
        harness.store.outcome = .routed(.local(LiveRoute(node: "n1", loop: 0, connection: 4)), setup: nil)
        try harness.signal(.initiate).get()
        #expect(harness.router.deliveries.map(\.user) == [harness.callee])
    }

    @Test func theCalleesConfirmation_ringsTheCallerOnThisNode_andRefusalsGetTheirCodes() throws {
        let harness = CallHarness()
        let route = LiveRoute(node: "n1", loop: 0, connection: 7)
        harness.store.confirmation = .confirmed(caller: harness.caller, routing: .local(route), frame: [1, 2])
        try harness.confirm().get()
        #expect(harness.router.deliveries.map(\.user) == [harness.caller])
        harness.store.confirmation = .repeated
        try harness.confirm().get()
        #expect(harness.router.deliveries.count == 1)
        harness.store.confirmation = .notTheCallee
        #expect(throws: ServiceError.forbidden("not the callee of this call")) { try harness.confirm().get() }
        harness.store.confirmation = .unknownCall
        #expect(throws: ServiceError.notFound("unknown call")) { try harness.confirm().get() }
        // Each confirmation is a CALL hit of the callee; refused, it reaches no store.
        #expect(harness.rateLimits.charged.allSatisfy { $0.map(\.action) == [.call, .call] } && harness.rateLimits.charged.count == 4)
        harness.rateLimits.decision = .limited(retryAfterMs: 900)
        harness.store.confirmation = .confirmed(caller: harness.caller, routing: .local(route), frame: [1, 2])
        #expect(throws: ServiceError.rateLimited(retryAfterMs: 900)) { try harness.confirm().get() }
        #expect(harness.router.deliveries.count == 1)
    }

    @Test func theSweep_pushesUnconfirmedCallees_withTheCallIdAsSpelt_andCountsThem() throws {
        let harness = CallHarness()
        let offer = UnconfirmedOffer(callee: harness.callee, callIdText: "0F8FAD5B-D9CB-469F-A165-70867728950E",
                                     callId: try #require(CanonicalUUID("0f8fad5b-d9cb-469f-a165-70867728950e")), claim: "17")
        harness.store.swept = CallSweep(ended: [], unconfirmed: [offer])
        var ended: Result<Int, ServiceError>?
        harness.service.sweep { ended = $0 }
        #expect(try ended?.get() == 0)
        #expect(harness.wakeUps.rings.map(\.callee) == [harness.callee])
        #expect(harness.wakeUps.rings.map(\.callIdText) == ["0F8FAD5B-D9CB-469F-A165-70867728950E"])
        #expect(harness.metrics.callUnconfirmed.value == 1)
        // The claim is settled only once the push was handed over.
        #expect(harness.store.settled.isEmpty)
        harness.wakeUps.hand(true)
        #expect(harness.store.settled == [offer])
    }

    @Test func aPushThatCouldNotBeHanded_leavesTheClaimToLapse() throws {
        let harness = CallHarness()
        let offer = UnconfirmedOffer(callee: harness.callee, callIdText: "0f8fad5b-d9cb-469f-a165-70867728950e",
                                     callId: try #require(CanonicalUUID("0f8fad5b-d9cb-469f-a165-70867728950e")), claim: "17")
        harness.store.swept = CallSweep(ended: [], unconfirmed: [offer])
        harness.service.sweep { _ in }
        harness.wakeUps.hand(false)
        #expect(harness.wakeUps.rings.count == 1)
        #expect(harness.store.settled.isEmpty)
    }

    @Test func theSweep_writesWhatADeadNodeLeft_asItsKind_countingOnlyTheTimeouts() throws {
        let harness = CallHarness()
        let route = LiveRoute(node: "n1", loop: 0, connection: 3)
        harness.store.swept = CallSweep(ended: [RangOutCall(frame: [1], local: [(harness.callee, route)])], unconfirmed: [],
                                        finished: [RangOutCall(frame: [2], local: [(harness.caller, route)], kind: .signal),
                                                   RangOutCall(frame: [3], local: [(harness.callee, route)])])
        var ended: Result<Int, ServiceError>?
        harness.service.sweep { ended = $0 }
        #expect(try ended?.get() == 1)
        #expect(harness.router.deliveries.map(\.frame) == [[1], [2], [3]])
        #expect(harness.router.deliveries.map(\.kind) == [.event, .signal, .event])
        #expect(harness.router.deliveries.map(\.user) == [harness.callee, harness.caller, harness.callee])
        #expect(harness.metrics.callSetup.labels("timeout").value == 1)
    }

    /// On a Redis Cluster a signal is several one-slot steps, so the service, not the store,
    /// keeps a call's signals in order: the next waits until the one before is answered.
    @Test func signalsOfOneCall_reachTheStoreOneAtATimeInOrder_othersCallsDoNotWait_andAFloodIsRefused() throws {
        let harness = CallHarness()
        harness.store.holding = true
        let call = "0f8fad5b-d9cb-469f-a165-70867728950e", other = "1e2d3c4b-5a69-4788-9aab-bccddeeff001"
        var answers: [CallSignalKind] = []
        for kind in [CallSignalKind.initiate, .iceCandidate, .iceCandidate, .end] {
            harness.signal(kind, callId: call) { _ in answers.append(kind) }
        }
        harness.signal(.iceCandidate, callId: other)
        // The offer and the other call's candidate reached the store; the rest wait behind the offer.
        #expect(harness.store.applied.map(\.kind) == [.initiate, .iceCandidate])
        #expect(harness.store.applied.last?.callId.string == other)
        harness.store.answerNext()  // the offer
        harness.store.answerNext()  // the other call's candidate
        #expect(harness.store.applied.map(\.kind) == [.initiate, .iceCandidate, .iceCandidate])
        for _ in 0..<3 { harness.store.answerNext() }
        #expect(harness.store.applied.filter { $0.callId.string == call }.map(\.kind) == [.initiate, .iceCandidate, .iceCandidate, .end])
        #expect(answers == [.initiate, .iceCandidate, .iceCandidate, .end])

        // A client that floods one call is refused past the queue's bound, and nothing is lost before it.
        harness.signal(.initiate, callId: call)
        for _ in 0..<CallService.maxWaitingSignals {
            // Not answered yet: waiting behind the offer.
            #expect(throws: ServiceError.internalFailure("no completion")) { try harness.signal(.iceCandidate, callId: call).get() }
        }
        #expect(throws: ServiceError.rateLimited(retryAfterMs: 1_000)) { try harness.signal(.iceCandidate, callId: call).get() }
        for _ in 0...CallService.maxWaitingSignals { harness.store.answerNext() }
        #expect(harness.store.applied.count == 5 + 1 + CallService.maxWaitingSignals)
    }

    @Test func aBlockedCallersCancel_wakesNobody_andCountsItsSetup() throws {
        let harness = CallHarness()
        harness.store.outcome = .dropped(setup: .failed)
        try harness.signal(.end).get()
        #expect(harness.wakeUps.woken.isEmpty && harness.wakeUps.rings.isEmpty && harness.router.deliveries.isEmpty)
        #expect(harness.metrics.callSetup.labels("failed").value == 1)
    }
}

// MARK: - Harness

final class FakeCallStore: CallStore {
    var outcome = CallStoreOutcome.routed(.offline, setup: nil)
    var offers: [CallOffer] = []
    /// Every signal that reached the store, in order.
    var applied: [(kind: CallSignalKind, callId: CanonicalUUID)] = []
    /// When set, answers wait in `held` until `answerNext()` (a store still working on them).
    var holding = false
    private var held: [() -> Void] = []
    func initiate(_ offer: CallOffer, completion: @escaping StoreCompletion<CallStoreOutcome>) {
        offers.append(offer)
        applied.append((.initiate, offer.callId))
        answer(completion)
    }
    func signal(_ signal: CallSignal, completion: @escaping StoreCompletion<CallStoreOutcome>) {
        applied.append((signal.kind, signal.callId))
        answer(completion)
    }
    private func answer(_ completion: @escaping StoreCompletion<CallStoreOutcome>) {
        let outcome = outcome
        guard holding else { return completion(.success(outcome)) }
        held.append { completion(.success(outcome)) }
    }
    func answerNext() { if !held.isEmpty { held.removeFirst()() } }
    var confirmation = CallConfirmation.unknownCall
    func confirm(_ callId: CanonicalUUID, callee: WhisperID, completion: @escaping StoreCompletion<CallConfirmation>) {
        completion(.success(confirmation))
    }
    func heldCalls(for user: WhisperID, completion: @escaping StoreCompletion<[[UInt8]]>) { completion(.success([])) }
    var swept = CallSweep(ended: [], unconfirmed: [])
    func sweep(completion: @escaping StoreCompletion<CallSweep>) { completion(.success(swept)) }
    var settled: [UnconfirmedOffer] = []
    func settle(_ offer: UnconfirmedOffer, completion: @escaping StoreCompletion<Void>) {
        settled.append(offer)
        completion(.success(()))
    }
}

final class RecordingWakeUps: WakeUps {
    var rings: [(callee: WhisperID, callIdText: String)] = []
    var woken: [WhisperID] = []
    func wake(_ user: WhisperID) { woken.append(user) }
    var claimWindowMillis: Int64 { 30_000 }
    func wakeClaimed(_ user: WhisperID) { woken.append(user) }
    private var handing: [(Bool) -> Void] = []
    func ring(_ callee: WhisperID, callIdText: String, handed: @escaping (Bool) -> Void) {
        rings.append((callee, callIdText))
        handing.append(handed)
    }
    /// The pushes rung so far are handed over (or could not be).
    func hand(_ handed: Bool) {
        let waiting = handing
        handing = []
        for done in waiting { done(handed) }
    }
}

/// A `CallService` over fakes with a registered callee, and signals signed by the caller's key
/// as a phone signs them.
struct CallHarness {
    static let now: Int64 = 1_763_820_000_000
    let store = FakeCallStore()
    let router = FakeRouter()
    let wakeUps = RecordingWakeUps()
    let rateLimits = FakeRateLimits()
    let metrics = WhisperMetrics(registry: MetricsRegistry(), includeProcessMetrics: false)
    let key = TestSigningKey(seed: [UInt8](repeating: 5, count: 32))
    let caller = WhisperID.random()
    let callee = WhisperID.random()
    let service: CallService

    init() {
        let identities = FakeIdentities()
        identities.users[callee] = StoredIdentity(keys: MessagingHarness.keys, isBanned: false)
        let limiter = RateLimiter(limits: .defaults, store: rateLimits, random: SeededRandom(seed: 1), metrics: metrics)
        service = CallService(limits: .default, store: store, router: router,
                              recipients: RecipientDirectory(identities: identities, now: { Self.now }), rateLimiter: limiter,
                              verifier: SignatureVerifier(histogram: metrics.ed25519Verify, sampleEvery: 1), wakeUps: wakeUps,
                              log: Log(level: .error, sink: MemoryLogSink()), metrics: metrics, now: { Self.now })
    }

    /// The callee's `call_received` for the call.
    func confirm() -> Result<Void, ServiceError> {
        let session = SessionRecord(hash: SessionHash(validated: [UInt8](repeating: 0, count: 32)), whisperId: callee,
                                    deviceId: .random(), platform: .ios, signPublicKey: key.publicKey,
                                    expiresAtMillis: Self.now + 1_000)
        var outcome: Result<Void, ServiceError>?
        service.confirm(.random(), session: session,
                        client: ClientRef(ip: "192.0.2.8", connection: ConnectionRef(node: "n1", connection: 8))) { outcome = $0 }
        return outcome ?? .failure(.internalFailure("no completion"))
    }

    /// A signal of `kind` from the caller to the callee on `callId` (spelt as given).
    /// Answered synchronously when the store answers at once; `answered` also sees a later answer.
    @discardableResult
    func signal(_ kind: CallSignalKind, callId: String = "0f8fad5b-d9cb-469f-a165-70867728950e",
                answered: ((Result<Void, ServiceError>) -> Void)? = nil) -> Result<Void, ServiceError> {
        let nonce = Data(repeating: 1, count: 24).base64EncodedString(), ciphertext = Data(repeating: 2, count: 32).base64EncodedString()
        let signed = TestMessage.signedBytes(type: kind.rawValue, messageId: callId, from: caller.string, to: callee.string,
                                             timestamp: Self.now, nonce: nonce, ciphertext: ciphertext)
        let signature = Data(key.sign(TestSHA256.hash(signed))).base64EncodedString()
        let video = kind == .initiate ? #""isVideo":false,"# : ""
        let text = #"{"type":"\#(kind.rawValue)","payload":{"callId":"\#(callId)","from":"\#(caller.string)","to":"\#(callee.string)","#
            + #"\#(video)"timestamp":\#(Self.now),"nonce":"\#(nonce)","ciphertext":"\#(ciphertext)","sig":"\#(signature)"}}"#
        let session = SessionRecord(hash: SessionHash(validated: [UInt8](repeating: 0, count: 32)), whisperId: caller,
                                    deviceId: .random(), platform: .ios, signPublicKey: key.publicKey,
                                    expiresAtMillis: Self.now + 1_000)
        var outcome: Result<Void, ServiceError>?
        do {
            let frame = try InboundFrame.parse(Array(text.utf8), limits: .default)
            let payload = try CallSignalPayload(parsing: frame, kind: kind, limits: .default)
            service.signal(payload, session: session,
                           client: ClientRef(ip: "192.0.2.7", connection: ConnectionRef(node: "n1", connection: 9))) {
                outcome = $0
                answered?($0)
            }
        } catch {
            return .failure(.internalFailure("unparsable test frame: \(error)"))
        }
        return outcome ?? .failure(.internalFailure("no completion"))
    }
}
