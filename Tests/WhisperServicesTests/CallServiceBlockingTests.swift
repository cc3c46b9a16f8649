import Foundation
import Testing
import WhisperOps
import WhisperProtocol
@testable import WhisperServices
import WhisperTesting

/// `CallService` when the store answers that the callee blocked the caller (docs/protocol.md
/// "Blocking"): the caller hears nothing special, nothing is written to the callee and nobody
/// is woken — where an ordinary offline callee gets a VoIP push.
@Suite struct CallServiceBlockingTests {
    @Test func anOfflineCallee_isRung_butOneWhoBlockedTheCaller_isNot() throws {
        let harness = CallHarness()
        harness.store.outcome = .routed(.offline, setup: nil)
        #expect(try harness.signal(.initiate).value == .done)
        #expect(harness.wakeUps.rung == [harness.callee])
        harness.store.outcome = .dropped(setup: nil)
        #expect(try harness.signal(.initiate).value == .done)
        #expect(harness.wakeUps.rung == [harness.callee])
        #expect(harness.router.deliveries.isEmpty)
    }

    @Test func aLiveCallee_isWrittenTo_andTheCallerHearsRinging_butNotWhenItBlockedTheCaller() throws {
        let harness = CallHarness()
        harness.store.outcome = .dropped(setup: nil)
        #expect(try harness.signal(.initiate).value == .done)
        #expect(try harness.signal(.iceCandidate).value == .done)
        #expect(harness.router.deliveries.isEmpty)
        harness.store.outcome = .routed(.local(LiveRoute(node: "n1", loop: 0, connection: 4)), setup: nil)
        #expect(try harness.signal(.initiate).value == .ringing)
        #expect(harness.router.deliveries.map { $0.user } == [harness.callee])
    }

    @Test func aBlockedCallersCancel_wakesNobody_andCountsItsSetup() throws {
        let harness = CallHarness()
        harness.store.outcome = .dropped(setup: .failed)
        #expect(try harness.signal(.end).value == .done)
        #expect(harness.wakeUps.woken.isEmpty && harness.router.deliveries.isEmpty)
        #expect(harness.metrics.callSetup.labels("failed").value == 1)
    }
}

final class FakeCallStore: CallStore {
    var outcome = CallStoreOutcome.routed(.offline, setup: nil)
    func initiate(_ offer: CallOffer, completion: @escaping StoreCompletion<CallStoreOutcome>) { completion(.success(outcome)) }
    func signal(_ signal: CallSignal, completion: @escaping StoreCompletion<CallStoreOutcome>) { completion(.success(outcome)) }
    func heldCalls(for user: WhisperID, completion: @escaping StoreCompletion<HeldCalls>) {
        completion(.success(HeldCalls(frames: [], ringing: [])))
    }
    func sweep(completion: @escaping StoreCompletion<[RangOutCall]>) { completion(.success([])) }
}

final class FakeWakeUps: WakeUps {
    var rung: [WhisperID] = []
    var woken: [WhisperID] = []
    func wake(_ user: WhisperID) { woken.append(user) }
    var claimWindowMillis: Int64 { 30_000 }
    func wakeClaimed(_ user: WhisperID) { woken.append(user) }
    func ring(_ callee: WhisperID, callId: CanonicalUUID) { rung.append(callee) }
}

/// A `CallService` over fakes with a registered callee, and signals signed by the caller's key.
struct CallHarness {
    static let now: Int64 = 1_763_820_000_000
    let store = FakeCallStore()
    let router = FakeRouter()
    let wakeUps = FakeWakeUps()
    let metrics = WhisperMetrics(registry: MetricsRegistry(), includeProcessMetrics: false)
    let key = TestKey(seed: 5)
    let caller = WhisperID.random()
    let callee = WhisperID.random()
    let callId = CanonicalUUID.random()
    let service: CallService

    init() {
        let identities = FakeIdentities()
        identities.users[callee] = StoredIdentity(keys: MessagingHarness.keys, isBanned: false)
        let limiter = RateLimiter(limits: .defaults, store: FakeRateLimits(), random: SeededRandom(seed: 2))
        service = CallService(limits: .default, store: store, router: router,
                              recipients: RecipientDirectory(identities: identities, now: { CallHarness.now }),
                              rateLimiter: limiter, verifier: SignatureVerifier(histogram: nil, sampleEvery: 1),
                              wakeUps: wakeUps, log: Log(level: .error, sink: MemoryLogSink()), metrics: metrics,
                              now: { CallHarness.now })
    }

    /// A signal of `kind` from the caller to the callee on `callId`, signed as a phone signs it.
    func signal(_ kind: CallSignalKind) throws -> Result<CallService.Outcome, ServiceError> {
        let nonce = Base64.encode([UInt8](repeating: 1, count: 24)), ciphertext = Base64.encode([UInt8](repeating: 2, count: 16))
        let signed = CanonicalSigning.signedBytes(messageType: kind.rawValue, messageId: callId.string, from: caller.string,
                                                  toOrGroupId: callee.string, timestampMillis: Self.now,
                                                  nonceBase64: Array(nonce.utf8), ciphertextBase64: Array(ciphertext.utf8))
        var payload: [String: Any] = [
            "protocolVersion": 1, "cryptoVersion": 1, "sessionToken": "x", "callId": callId.string, "from": caller.string,
            "to": callee.string, "timestamp": Self.now, "nonce": nonce, "ciphertext": ciphertext,
            "sig": Base64.encode(key.sign(TestSHA256.hash(signed))),
        ]
        if kind == .initiate { payload["isVideo"] = false }
        let text = try JSONSerialization.data(withJSONObject: ["type": kind.rawValue, "payload": payload])
        let frame = try InboundFrame.parse(Array(text), limits: .default)
        let parsed = try CallSignalPayload(parsing: frame, kind: kind, limits: .default)
        let session = SessionRecord(hash: SessionHash(validated: [UInt8](repeating: 0, count: 32)), whisperId: caller,
                                    deviceId: .random(), platform: .ios, signPublicKey: key.publicKey,
                                    expiresAtMillis: Self.now + 1_000)
        var outcome: Result<CallService.Outcome, ServiceError>?
        service.signal(parsed, session: session,
                       client: ClientRef(ip: "192.0.2.7", connection: ConnectionRef(node: "n1", connection: 9))) { outcome = $0 }
        return outcome ?? .failure(.internalFailure("no completion"))
    }
}
