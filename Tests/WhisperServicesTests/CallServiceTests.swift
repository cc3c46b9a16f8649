import Foundation
import Testing
import WhisperOps
import WhisperProtocol
@testable import WhisperServices
import WhisperTesting

/// `CallService` over fakes: what an offer to a callee without a live socket asks of push
/// (contract §15: the callee's call push carries the `callId` as the caller spelt it).
@Suite struct CallServiceTests {
    @Test func offerToAnOfflineCallee_ringsWithTheCallIdAsTheCallerSpeltIt() throws {
        let harness = CallHarness()
        let spelt = "0F8FAD5B-D9CB-469F-A165-70867728950E"
        #expect(harness.initiate(callId: spelt) == .success(.done))
        #expect(harness.wakeUps.rings.map(\.callIdText) == [spelt])
        #expect(harness.wakeUps.rings.map(\.callee) == [harness.callee])
        // The call's state is still keyed by the lower-case id.
        #expect(harness.store.offers.map(\.callId.string) == [spelt.lowercased()])
    }

    @Test func offerToALiveCallee_ringsNoPush() throws {
        let harness = CallHarness()
        harness.store.routing = .remote
        #expect(harness.initiate(callId: UUID().uuidString) == .success(.ringing))
        #expect(harness.wakeUps.rings.isEmpty)
    }
}

// MARK: - Harness

final class FakeCallStore: CallStore {
    var routing = Routing.offline
    var offers: [CallOffer] = []
    func initiate(_ offer: CallOffer, completion: @escaping StoreCompletion<CallStoreOutcome>) {
        offers.append(offer)
        completion(.success(.routed(routing, setup: nil)))
    }
    func signal(_ signal: CallSignal, completion: @escaping StoreCompletion<CallStoreOutcome>) {
        completion(.success(.routed(routing, setup: nil)))
    }
    func heldCalls(for user: WhisperID, completion: @escaping StoreCompletion<HeldCalls>) {
        completion(.success(HeldCalls(frames: [], ringing: [])))
    }
    func sweep(completion: @escaping StoreCompletion<[RangOutCall]>) { completion(.success([])) }
}

final class RecordingWakeUps: WakeUps {
    var rings: [(callee: WhisperID, callIdText: String)] = []
    var woken: [WhisperID] = []
    func wake(_ user: WhisperID) { woken.append(user) }
    var claimWindowMillis: Int64 { 30_000 }
    func wakeClaimed(_ user: WhisperID) { woken.append(user) }
    func ring(_ callee: WhisperID, callIdText: String) { rings.append((callee, callIdText)) }
}

/// A router for calls to callees on other nodes or none: nothing to write here.
final class CallRouter: MessageRouter {
    func deliver(_ frame: consuming [UInt8], to user: WhisperID, at route: LiveRoute, kind: DeliveryKind, receivedAtMicros: Int64) {
        Issue.record("no local delivery expected")
    }
}

struct CallHarness {
    static let now: Int64 = 1_763_820_000_000
    let store = FakeCallStore()
    let wakeUps = RecordingWakeUps()
    let identities = FakeIdentities()
    let metrics = WhisperMetrics(registry: MetricsRegistry(), includeProcessMetrics: false)
    let key = TestSigningKey(seed: [UInt8](repeating: 5, count: 32))
    let caller = WhisperID.random()
    let callee = WhisperID.random()
    let service: CallService

    init() {
        let keys = IdentityKeys(encPublicKey: [UInt8](repeating: 1, count: 32), signPublicKey: [UInt8](repeating: 2, count: 32))
        identities.users[callee] = StoredIdentity(keys: keys, isBanned: false)
        let limiter = RateLimiter(limits: .defaults, store: FakeRateLimits(), random: SeededRandom(seed: 1), metrics: metrics)
        service = CallService(limits: .default, store: store, router: CallRouter(),
                              recipients: RecipientDirectory(identities: identities, now: { Self.now }), rateLimiter: limiter,
                              verifier: SignatureVerifier(histogram: metrics.ed25519Verify, sampleEvery: 1), wakeUps: wakeUps,
                              log: Log(level: .error, sink: MemoryLogSink()), metrics: metrics, now: { Self.now })
    }

    /// A `call_initiate` signed by `key`, as a caller's app sends it.
    func initiate(callId: String) -> Result<CallService.Outcome, ServiceError> {
        let nonce = Data(repeating: 1, count: 24).base64EncodedString(), ciphertext = Data(repeating: 2, count: 32).base64EncodedString()
        let signed = TestMessage.signedBytes(type: "call_initiate", messageId: callId, from: caller.string, to: callee.string,
                                             timestamp: Self.now, nonce: nonce, ciphertext: ciphertext)
        let signature = Data(key.sign(TestSHA256.hash(signed))).base64EncodedString()
        let text = #"{"type":"call_initiate","payload":{"callId":"\#(callId)","from":"\#(caller.string)","to":"\#(callee.string)","#
            + #""isVideo":false,"timestamp":\#(Self.now),"nonce":"\#(nonce)","ciphertext":"\#(ciphertext)","sig":"\#(signature)"}}"#
        let session = SessionRecord(hash: SessionHash(validated: [UInt8](repeating: 0, count: 32)), whisperId: caller,
                                    deviceId: .random(), platform: .ios, signPublicKey: key.publicKey,
                                    expiresAtMillis: Self.now + 1_000)
        var outcome: Result<CallService.Outcome, ServiceError>?
        do {
            let frame = try InboundFrame.parse(Array(text.utf8), limits: .default)
            let payload = try CallSignalPayload(parsing: frame, kind: .initiate, limits: .default)
            service.signal(payload, session: session,
                           client: ClientRef(ip: "192.0.2.7", connection: ConnectionRef(node: "n1", connection: 9))) { outcome = $0 }
        } catch {
            return .failure(.internalFailure("unparsable test frame: \(error)"))
        }
        return outcome ?? .failure(.internalFailure("no completion"))
    }
}
