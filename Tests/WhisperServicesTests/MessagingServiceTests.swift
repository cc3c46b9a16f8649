import Foundation
import Testing
import WhisperOps
import WhisperProtocol
@testable import WhisperServices

/// `MessagingService` over fakes: the order of the send checks, what reaches the store and
/// the router, and how store outcomes map to replies. The message is the signed fixture of
/// Tests/Fixtures/send-message-vector.json (WSP-ABCD-EFGH-IJ54 → WSP-HESP-ERAL-IT3A).
@Suite struct MessagingServiceTests {
    @Test func validMessage_isAccepted_andALocalRecipientGetsTheSendersBytes() throws {
        let harness = try MessagingHarness()
        harness.store.acceptOutcome = .accepted(cursor: PendingCursor(milliseconds: 1, sequence: 0),
                                                routing: .local(LiveRoute(node: "n1", loop: 1, connection: 5)))
        #expect(harness.send(harness.message).isSuccess)
        #expect(harness.store.accepted.map(\.deliveryPayload) == [harness.message.deliveryPayload])
        #expect(harness.store.accepted.first?.rateLimit.buckets.map(\.action) == [.send, .send])
        let delivery = try #require(harness.router.deliveries.first)
        #expect(delivery.kind == .message && delivery.route.loop == 1 && delivery.user == harness.message.to)
        #expect(delivery.frame == MessageFrames.messageReceived(deliveryPayload: harness.message.deliveryPayload))
    }

    @Test func remoteOrOfflineRecipient_isNotWrittenHere() throws {
        let harness = try MessagingHarness()
        for routing in [Routing.remote, .offline] {
            harness.store.acceptOutcome = .accepted(cursor: PendingCursor(milliseconds: 1, sequence: 0), routing: routing)
            #expect(harness.send(harness.message).isSuccess)
        }
        #expect(harness.router.deliveries.isEmpty)
    }

    @Test func checks_runInOrder_andNothingIsStoredOnAFailure() throws {
        let harness = try MessagingHarness()
        let stranger = WhisperID.random()
        // from ≠ session wins over a stale timestamp and a bad signature.
        #expect(harness.send(harness.message, as: stranger, now: MessagingHarness.now + 11 * 60_000).failure
                    == .forbidden("from is not the session's whisperId"))
        // Then the timestamp, before the signature is looked at.
        #expect(harness.send(harness.message, now: MessagingHarness.now + 10 * 60_000 + 1).failure == .invalidTimestamp)
        #expect(harness.send(harness.message, now: MessagingHarness.now - 10 * 60_000).isSuccess)
        // A key that did not sign it.
        #expect(harness.send(harness.message, signKey: [UInt8](repeating: 3, count: 32)).failure == .authFailed(.badSignature))
        #expect(harness.store.accepted.count == 1)
    }

    @Test func unknownOrBannedRecipient_isRefusedBeforeTheStore() throws {
        let harness = try MessagingHarness()
        harness.identities.users = [:]
        #expect(harness.send(harness.message).failure == .notFound("unknown recipient"))
        harness.identities.users[harness.message.to] = StoredIdentity(keys: MessagingHarness.keys, isBanned: true)
        let fresh = try MessagingHarness(identities: harness.identities)
        #expect(fresh.send(fresh.message).failure == .forbidden("recipient is banned"))
        #expect(harness.store.accepted.isEmpty && fresh.store.accepted.isEmpty)
    }

    @Test func storeOutcomes_mapToReplies() throws {
        let harness = try MessagingHarness()
        harness.store.acceptOutcome = .duplicate
        #expect(harness.send(harness.message).isSuccess)
        harness.store.acceptOutcome = .rateLimited(retryAfterMs: 1_234)
        #expect(harness.send(harness.message).failure == .rateLimited(retryAfterMs: 1_234))
        harness.store.acceptOutcome = .queueFull
        #expect(harness.send(harness.message).failure == .rateLimited(retryAfterMs: MessagingService.queueFullRetryAfterMs))
        // A recipient that blocked the sender: acknowledged like any message, nothing routed.
        harness.store.acceptOutcome = .dropped
        #expect(harness.send(harness.message).isSuccess)
        #expect(harness.router.deliveries.isEmpty)
        #expect(harness.metrics.rateLimited.labels("send").value == 1)
    }

    @Test func unconfirmedAccept_isRoutedLikeTheAccept_butAnsweredInternalError_andCounted() throws {
        let harness = try MessagingHarness()
        let route = LiveRoute(node: "n1", loop: 1, connection: 5)
        let accepted = AcceptOutcome.accepted(cursor: PendingCursor(milliseconds: 1, sequence: 0), routing: .local(route))
        harness.store.acceptOutcome = .unconfirmed(accepted, replicas: 0)
        let failure = try #require(harness.send(harness.message).failure)
        #expect(failure.code == .internalError)
        // The primary has it: the recipient gets it now, and the sender's retry is a duplicate.
        #expect(harness.router.deliveries.map(\.user) == [harness.message.to])
        #expect(harness.metrics.redisWaitShortfall.value == 1)
        #expect(harness.metrics.messagesAccepted.labels("direct").value == 1)
        harness.store.acceptOutcome = .unconfirmed(.duplicate, replicas: nil)
        #expect(harness.send(harness.message).failure?.code == .internalError)
        harness.store.acceptOutcome = .duplicate
        #expect(harness.send(harness.message).isSuccess)
        #expect(harness.router.deliveries.count == 1)
        #expect(harness.metrics.redisWaitShortfall.value == 2)
    }

    @Test func receipt_mustComeFromTheSession_andNotifiesALocalSender() throws {
        let harness = try MessagingHarness()
        let recipient = harness.message.to
        let receipt = try DeliveryReceiptPayload(messageIdText: harness.message.messageIdText, from: recipient,
                                                 to: harness.message.from, status: .delivered, timestamp: 7)
        #expect(harness.receipt(receipt, as: harness.message.from).failure == .forbidden("from is not the session's whisperId"))
        harness.store.receiptOutcome = .unknown
        #expect(harness.receipt(receipt, as: recipient).failure == .notFound("unknown message"))
        #expect(harness.router.deliveries.isEmpty)
        // The store answers the id as the sender spelt it; the notification carries that spelling.
        let spelt = receipt.messageIdText.uppercased()
        harness.store.receiptOutcome = .applied(removed: true, routing: .local(LiveRoute(node: "n1", loop: 0, connection: 2)),
                                                messageIdText: spelt)
        #expect(harness.receipt(receipt, as: recipient).isSuccess)
        let delivery = try #require(harness.router.deliveries.first)
        #expect(delivery.kind == .event && delivery.user == harness.message.from)
        #expect(delivery.frame == MessageFrames.messageDelivered(messageIdText: spelt, from: recipient, status: .delivered, timestamp: 7))
        let stored = try #require(harness.store.receipts.last)
        #expect(stored.sender == harness.message.from && stored.messageIdText == receipt.messageIdText)
        #expect(stored.notification.head + Array(spelt.utf8) + stored.notification.tail == delivery.frame)
    }
}

// MARK: - Harness

final class FakeMessageStore: MessageStore {
    var acceptedKeys: Set<String> = []
    func wasAccepted(_ messageId: CanonicalUUID, from: WhisperID, to: WhisperID, completion: @escaping StoreCompletion<Bool>) {
        completion(.success(acceptedKeys.contains("\(from.string) \(messageId.string) \(to.string)")))
    }
    var acceptOutcome = AcceptOutcome.accepted(cursor: PendingCursor(milliseconds: 1, sequence: 0), routing: .offline)
    var receiptOutcome = ReceiptOutcome.applied(removed: true, routing: .offline, messageIdText: "")
    var accepted: [MessageAcceptance] = []
    var receipts: [ReceiptApplication] = []

    func accept(_ message: MessageAcceptance, completion: @escaping StoreCompletion<AcceptOutcome>) {
        if case .accepted = acceptOutcome { accepted.append(message) }
        completion(.success(acceptOutcome))
    }
    func fetch(_ recipient: WhisperID, after cursor: PendingCursor?, limit: Int, completion: @escaping StoreCompletion<PendingPage>) {
        completion(.success(PendingPage(messages: [], hasMore: false)))
    }
    func applyReceipt(_ receipt: ReceiptApplication, completion: @escaping StoreCompletion<ReceiptOutcome>) {
        receipts.append(receipt)
        completion(.success(receiptOutcome))
    }
    func keepEvent(_ frame: [UInt8], for user: WhisperID, completion: @escaping StoreCompletion<Void>) {
        completion(.success(()))
    }
}

final class FakeRouter: MessageRouter {
    var deliveries: [(frame: [UInt8], user: WhisperID, route: LiveRoute, kind: DeliveryKind)] = []
    func deliver(_ frame: consuming [UInt8], to user: WhisperID, at route: LiveRoute, kind: DeliveryKind, receivedAtMicros: Int64) {
        deliveries.append((frame, user, route, kind))
    }
}

struct MessagingHarness {
    static let now: Int64 = 1_763_820_000_000
    static let keys = IdentityKeys(encPublicKey: [UInt8](repeating: 1, count: 32), signPublicKey: [UInt8](repeating: 2, count: 32))
    let store = FakeMessageStore()
    let router = FakeRouter()
    let identities: FakeIdentities
    let metrics = WhisperMetrics(registry: MetricsRegistry(), includeProcessMetrics: false)
    let message: SendMessagePayload
    let signKey: [UInt8]
    let client = ClientRef(ip: "192.0.2.7", connection: ConnectionRef(node: "n1", connection: 9))

    init(identities: FakeIdentities? = nil) throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/send-message-vector.json")
        let vector = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let frameText = try #require(vector["frame"] as? String)
        message = try SendMessagePayload(parsing: try InboundFrame.parse(Array(frameText.utf8), limits: .default), limits: .default)
        let keyText = try #require(vector["signPublicKeyBase64"] as? String)
        signKey = try #require(Base64.decode(keyText))
        if let identities {
            self.identities = identities
        } else {
            self.identities = FakeIdentities()
            self.identities.users[message.to] = StoredIdentity(keys: Self.keys, isBanned: false)
        }
    }

    func service(now: Int64) -> MessagingService {
        let limiter = RateLimiter(limits: .defaults, store: FakeRateLimits(), random: SeededRandom(seed: 1), metrics: metrics)
        return MessagingService(limits: .default, store: store, router: router,
                                recipients: RecipientDirectory(identities: identities, now: { now }), rateLimiter: limiter,
                                verifier: SignatureVerifier(histogram: metrics.ed25519Verify, sampleEvery: 1),
                                log: Log(level: .error, sink: MemoryLogSink()), metrics: metrics, now: { now })
    }

    func session(_ whisperId: WhisperID, signKey: [UInt8]) -> SessionRecord {
        SessionRecord(hash: SessionHash(validated: [UInt8](repeating: 0, count: 32)), whisperId: whisperId,
                      deviceId: .random(), platform: .ios,
                      signPublicKey: signKey, expiresAtMillis: Self.now + 1_000)
    }

    func send(_ message: SendMessagePayload, as whisperId: WhisperID? = nil, signKey: [UInt8]? = nil,
              now: Int64 = MessagingHarness.now) -> Result<Void, ServiceError> {
        var outcome: Result<Void, ServiceError>?
        service(now: now).send(message, session: session(whisperId ?? message.from, signKey: signKey ?? self.signKey),
                               client: client, receivedAtMicros: 0) { outcome = $0 }
        return outcome ?? .failure(.internalFailure("no completion"))
    }

    func receipt(_ receipt: DeliveryReceiptPayload, as whisperId: WhisperID) -> Result<Void, ServiceError> {
        var outcome: Result<Void, ServiceError>?
        service(now: Self.now).receipt(receipt, session: session(whisperId, signKey: signKey), client: client) { outcome = $0 }
        return outcome ?? .failure(.internalFailure("no completion"))
    }
}

extension Result {
    var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }
}
