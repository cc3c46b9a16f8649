import Foundation
import Testing
import WhisperOps
import WhisperProtocol
import WhisperRuntime
import WhisperServices
import WhisperStorage
import WhisperStores
import WhisperTesting

/// The message store's accept and receipt on the real 3-primary + 3-replica Redis Cluster that
/// scripts/test starts (`WHISPER_TEST_REDIS_CLUSTER_URL`): in steps of one slot each
/// (`MessageStepScripts`), including a node that dies between two steps — shown by running the
/// first step alone and then the client's retry of the whole operation.
@Suite("Message steps on a real Redis Cluster") struct MessageStepsClusterTests {
    @Test func accept_fetch_receipt_acrossSlots_offlineSenderKeepsTheNotice() async throws {
        let cluster = try await StepsCluster()
        defer { cluster.close() }
        let (from, to) = (WhisperID.random(), WhisperID.random())
        #expect(PendingSlots.slot(of: from) != PendingSlots.slot(of: to))
        let message = cluster.message(from: from, to: to, client: "192.0.2.7", wakeWindowMillis: 30_000)

        let accepted = try await cluster.accept(message)
        guard case .accepted(_, .offline, wakeClaimed: true) = accepted else {
            Issue.record("not accepted offline with a wake claim: \(accepted)")
            return
        }
        #expect(try await cluster.accept(message) == .duplicate)
        // What a verified abuse report checks.
        #expect(try await cluster.loop.result { done in cluster.store.wasAccepted(message.messageId, from: from, to: to, completion: done) })
        #expect(try await !cluster.loop.result { done in cluster.store.wasAccepted(message.messageId, from: to, to: from, completion: done) })
        let page = try await cluster.fetch(to)
        #expect(page.messages.map(\.payload) == [message.deliveryPayload])
        #expect(try await cluster.pendingTotal() == 1)

        let receipt = cluster.receipt(of: message, status: .delivered)
        #expect(try await cluster.receipt(receipt) == .applied(removed: true, routing: .offline, messageIdText: message.messageIdText))
        #expect(try await cluster.fetch(to).messages.isEmpty)
        #expect(try await cluster.keptEvents(from).count == 1)
        #expect(try await cluster.pendingTotal() == 0)
        // Unknown ids stay unknown.
        let stranger = cluster.receipt(of: cluster.message(from: from, to: to, client: "192.0.2.7"), status: .delivered)
        #expect(try await cluster.receipt(stranger) == .unknown)
    }

    @Test func nodeDiesAfterTheCharges_theRetryIsStoredOnce_andAGroupMessageIsChargedOnce() async throws {
        let cluster = try await StepsCluster()
        defer { cluster.close() }
        let (from, to) = (WhisperID.random(), WhisperID.random())
        let group = GroupStamp(groupId: GroupID.random(), epoch: "e1")
        try await cluster.setEpoch(group)
        let message = cluster.message(from: from, to: to, client: "192.0.2.8", group: group)

        // The first node charged the sender and the address, then died: nothing is queued.
        #expect(try await cluster.chargeOnly(message) == nil)
        #expect(try await cluster.fetch(to).messages.isEmpty)
        // The client's retry (same envelope, another node): stored once, charged nothing more.
        guard case .accepted = try await cluster.accept(cluster.retry(of: message)) else {
            Issue.record("the retry was not accepted")
            return
        }
        #expect(try await cluster.accept(cluster.retry(of: message)) == .duplicate)
        #expect(try await cluster.fetch(to).messages.count == 1)
        #expect(try await cluster.hits(subject: "id:" + from.string) == 1)
        #expect(try await cluster.hits(subject: "ip:192.0.2.8") == 1)

        // Another member's envelope of the same group message goes free as well.
        let other = WhisperID.random()
        guard case .accepted = try await cluster.accept(cluster.retry(of: message, to: other)) else {
            Issue.record("the second envelope was not accepted")
            return
        }
        #expect(try await cluster.hits(subject: "id:" + from.string) == 1)

        // A direct message cut off the same way is charged again by its retry: at worst twice.
        let direct = cluster.message(from: from, to: to, client: "192.0.2.8")
        #expect(try await cluster.chargeOnly(direct) == nil)
        guard case .accepted = try await cluster.accept(cluster.retry(of: direct)) else {
            Issue.record("the direct retry was not accepted")
            return
        }
        #expect(try await cluster.hits(subject: "id:" + from.string) == 3)
        #expect(try await cluster.fetch(to).messages.count == 2)
    }

    @Test func staleEpoch_refuses_andTheRetryUnderTheNewEpochIsNotChargedAgain() async throws {
        let cluster = try await StepsCluster()
        defer { cluster.close() }
        let (from, to) = (WhisperID.random(), WhisperID.random())
        let groupId = GroupID.random()
        try await cluster.setEpoch(GroupStamp(groupId: groupId, epoch: "new"))
        let stale = cluster.message(from: from, to: to, client: "192.0.2.9", group: GroupStamp(groupId: groupId, epoch: "old"))
        #expect(try await cluster.accept(stale) == .membershipChanged)
        #expect(try await cluster.fetch(to).messages.isEmpty)
        let current = cluster.retry(of: stale, group: GroupStamp(groupId: groupId, epoch: "new"))
        guard case .accepted = try await cluster.accept(current) else {
            Issue.record("not accepted under the current epoch")
            return
        }
        #expect(try await cluster.hits(subject: "id:" + from.string) == 1)
    }

    @Test func nodeDiesBetweenTheReceiptsSteps_theRetryStillTellsTheSender() async throws {
        let cluster = try await StepsCluster()
        defer { cluster.close() }
        let (from, to) = (WhisperID.random(), WhisperID.random())
        let message = cluster.message(from: from, to: to, client: "192.0.2.10")
        guard case .accepted = try await cluster.accept(message) else {
            Issue.record("not accepted")
            return
        }
        let receipt = cluster.receipt(of: message, status: .delivered)
        // The recipient's step ran, the sender's did not: the queue is empty, nobody was told.
        let first = try await cluster.receiptRecipientStepOnly(receipt)
        #expect(first == .applied(removed: true, spelt: message.messageIdText))
        #expect(try await cluster.keptEvents(from).isEmpty)
        #expect(try await cluster.fetch(to).messages.isEmpty)
        // The client's retry of the receipt tells the sender; the count went down once.
        #expect(try await cluster.receipt(receipt) == .applied(removed: false, routing: .offline, messageIdText: message.messageIdText))
        #expect(try await cluster.keptEvents(from).count == 1)
        #expect(try await cluster.pendingTotal() == 0)
        // A further repeat tells the sender again (its answer may have been lost as well).
        #expect(try await cluster.receipt(receipt) == .applied(removed: false, routing: .offline, messageIdText: message.messageIdText))
        #expect(try await cluster.keptEvents(from).count == 2)
        #expect(try await cluster.pendingTotal() == 0)
    }

    @Test func recipientOnAnotherNode_getsThePublishedFrame_andNobodyListeningMeansOffline() async throws {
        let cluster = try await StepsCluster()
        defer { cluster.close() }
        let (from, to) = (WhisperID.random(), WhisperID.random())
        let otherNode = "0ther" + String(UInt32.random(in: 0...UInt32.max), radix: 16)
        try await cluster.command(["SET", cluster.keys.route(to), Array("\(otherNode):0:7".utf8)])

        // Nobody subscribed to that node's channel: offline, and the push window is claimed.
        let unheard = cluster.message(from: from, to: to, client: "192.0.2.11", wakeWindowMillis: 30_000)
        guard case .accepted(_, .offline, wakeClaimed: true) = try await cluster.accept(unheard) else {
            Issue.record("a publish nobody heard was not offline")
            return
        }

        let inbox = try await cluster.subscribe(cluster.keys.deliveryChannel(otherNode))
        defer { inbox.close() }
        let heard = cluster.message(from: from, to: to, client: "192.0.2.11", wakeWindowMillis: 30_000)
        guard case .accepted(_, .remote, _) = try await cluster.accept(heard) else {
            Issue.record("not routed to the other node")
            return
        }
        let notice = try #require(await inbox.next())
        let text = String(decoding: notice, as: UTF8.self)
        #expect(text.hasPrefix("\(otherNode):0:7 \(to.string) m "))
        #expect(notice.suffix(MessageFrames.messageReceived(deliveryPayload: heard.deliveryPayload).count)
            == ArraySlice(MessageFrames.messageReceived(deliveryPayload: heard.deliveryPayload)))
    }

    /// The receipt's notice to a sender with a socket reads the route with a plain `GET`: on
    /// another node it is published there, and kept for the sender's next login when that
    /// node's channel has nobody listening (a dead node's route) — as when it had no route.
    @Test func senderOnAnotherNode_getsThePublishedNotice_andNobodyListeningKeepsIt() async throws {
        let cluster = try await StepsCluster()
        defer { cluster.close() }
        let (from, to) = (WhisperID.random(), WhisperID.random())
        let otherNode = "0ther" + String(UInt32.random(in: 0...UInt32.max), radix: 16)
        try await cluster.command(["SET", cluster.keys.route(from), Array("\(otherNode):0:9".utf8)])

        let unheard = cluster.message(from: from, to: to, client: "192.0.2.12")
        _ = try await cluster.accept(unheard)
        #expect(try await cluster.receipt(cluster.receipt(of: unheard, status: .delivered))
            == .applied(removed: true, routing: .offline, messageIdText: unheard.messageIdText))
        #expect(try await cluster.keptEvents(from).count == 1)

        let inbox = try await cluster.subscribe(cluster.keys.deliveryChannel(otherNode))
        defer { inbox.close() }
        let heard = cluster.message(from: from, to: to, client: "192.0.2.12")
        _ = try await cluster.accept(heard)
        #expect(try await cluster.receipt(cluster.receipt(of: heard, status: .delivered))
            == .applied(removed: true, routing: .remote, messageIdText: heard.messageIdText))
        let notice = String(decoding: try #require(await inbox.next()), as: UTF8.self)
        #expect(notice.hasPrefix("\(otherNode):0:9 \(from.string) e "))
        #expect(notice.contains(heard.messageIdText))
        #expect(try await cluster.keptEvents(from).count == 1)
        // A repeated receipt is published again.
        #expect(try await cluster.receipt(cluster.receipt(of: heard, status: .delivered))
            == .applied(removed: false, routing: .remote, messageIdText: heard.messageIdText))
        #expect(String(decoding: try #require(await inbox.next()), as: UTF8.self).contains(heard.messageIdText))
        #expect(try await cluster.keptEvents(from).count == 1)
    }

    @Test func rateLimitOverAnIdentityAndAnAddress_isOneStepPerSubject() async throws {
        let cluster = try await StepsCluster(sendLimit: RateLimit(count: 2, windowSeconds: 60))
        defer { cluster.close() }
        let from = WhisperID.random()
        for _ in 0..<2 {
            #expect(try await cluster.hitSend(client: "192.0.2.12", from: from) == .allowed)
        }
        guard case .limited(let wait) = try await cluster.hitSend(client: "192.0.2.12", from: from) else {
            Issue.record("the third hit was not limited")
            return
        }
        #expect(wait > 0)
    }

    @Test func accepts_areLimitedBySenderAndByAddress_eachInItsOwnSlot() async throws {
        let cluster = try await StepsCluster(sendLimit: RateLimit(count: 2, windowSeconds: 60))
        defer { cluster.close() }
        let (first, second, third, to) = (WhisperID.random(), WhisperID.random(), WhisperID.random(), WhisperID.random())
        // Two senders behind one address fill the address's log; a third sender there is refused.
        for from in [first, second] {
            guard case .accepted = try await cluster.accept(cluster.message(from: from, to: to, client: "192.0.2.30")) else {
                Issue.record("a message within the limits was not accepted")
                return
            }
        }
        guard case .rateLimited(let wait) = try await cluster.accept(cluster.message(from: third, to: to, client: "192.0.2.30")) else {
            Issue.record("the address's third message was not limited")
            return
        }
        #expect(wait > 0)
        #expect(try await cluster.hits(subject: "ip:192.0.2.30") == 2)
        #expect(try await cluster.hits(subject: "id:" + first.string) == 1)
        // One sender from two more addresses fills its own log, wherever it connects from.
        guard case .accepted = try await cluster.accept(cluster.message(from: first, to: to, client: "192.0.2.31")) else {
            Issue.record("the sender's second message was not accepted")
            return
        }
        guard case .rateLimited = try await cluster.accept(cluster.message(from: first, to: to, client: "192.0.2.32")) else {
            Issue.record("the sender's third message was not limited")
            return
        }
        #expect(try await cluster.fetch(to).messages.count == 3)
    }
}

/// The message store on a `ClusterStores`, and a SEND rate limiter.
private final class StepsCluster: @unchecked Sendable {
    let stores: ClusterStores
    let store: RedisMessageStore
    let limiter: RateLimiter
    var loop: TestLoop { stores.loop }
    var redis: RedisClient { stores.redis }
    var keys: RedisKeys { stores.keys }
    private var limits: Limits { stores.limits }

    init(sendLimit: RateLimit = RateLimit(count: 1_000, windowSeconds: 60)) async throws {
        stores = try await ClusterStores()
        store = RedisMessageStore(redis: stores.redis, keys: stores.keys, node: stores.node, limits: stores.limits)
        var rateLimits = RateLimits.defaults
        rateLimits[.send, .identity] = sendLimit
        rateLimits[.send, .ip] = sendLimit
        limiter = RateLimiter(limits: rateLimits, store: RedisRateLimitStore(redis: stores.redis, keys: stores.keys))
    }

    func close() { stores.close() }
    func command(_ arguments: [Any]) async throws -> RedisValue { try await stores.command(arguments) }
    func subscribe(_ channel: [UInt8]) async throws -> ClusterInbox { try await stores.subscribe(channel) }

    func message(from: WhisperID, to: WhisperID, client: String, group: GroupStamp? = nil,
                 wakeWindowMillis: Int64? = nil) -> MessageAcceptance {
        let id = CanonicalUUID.random()
        return MessageAcceptance(from: from, to: to, messageId: id, messageIdText: id.string.uppercased(),
                                 deliveryPayload: Array("{\"n\":\"\(UUID().uuidString)\"}".utf8), receivedAtMicros: 1,
                                 rateLimit: limiter.charge(.send, subjects: [.ip(client), .identity(from.string)]),
                                 group: group, wakeWindowMillis: wakeWindowMillis)
    }

    /// The same envelope sent again (a new hit name, as a new frame gets), possibly to another member.
    func retry(of message: MessageAcceptance, to: WhisperID? = nil, group: GroupStamp? = nil) -> MessageAcceptance {
        let client = message.rateLimit.buckets.first { $0.subject.hasPrefix("ip:") }.map { String($0.subject.dropFirst(3)) } ?? ""
        return MessageAcceptance(from: message.from, to: to ?? message.to, messageId: message.messageId,
                                 messageIdText: message.messageIdText, deliveryPayload: message.deliveryPayload,
                                 receivedAtMicros: message.receivedAtMicros,
                                 rateLimit: limiter.charge(.send, subjects: [.ip(client), .identity(message.from.string)]),
                                 group: group ?? message.group, wakeWindowMillis: message.wakeWindowMillis)
    }

    func receipt(of message: MessageAcceptance, status: ReceiptStatus) -> ReceiptApplication {
        ReceiptApplication(recipient: message.to, sender: message.from, messageId: message.messageId,
                           messageIdText: message.messageId.string, status: status,
                           notification: MessageFrames.messageDeliveredParts(from: message.to, status: status, timestamp: 1))
    }

    func accept(_ message: MessageAcceptance) async throws -> AcceptOutcome {
        try await loop.result { done in self.store.accept(message, completion: done) }
    }

    func chargeOnly(_ message: MessageAcceptance) async throws -> AcceptOutcome? {
        try await loop.result { done in self.store.chargeInSteps(message, completion: done) }
    }

    func receipt(_ receipt: ReceiptApplication) async throws -> ReceiptOutcome {
        try await loop.result { done in self.store.applyReceipt(receipt, completion: done) }
    }

    func receiptRecipientStepOnly(_ receipt: ReceiptApplication) async throws -> RedisMessageStore.RecipientReceipt {
        try await loop.result { done in self.store.receiptForRecipient(receipt, completion: done) }
    }

    func fetch(_ user: WhisperID) async throws -> PendingPage {
        try await loop.result { done in self.store.fetch(user, after: nil, limit: 100, completion: done) }
    }

    func pendingTotal() async throws -> Int64 {
        // On a cluster a run reads an eighth of the slots' counters: eight runs read them all.
        let sweep = OnLoop(RedisPendingSweep(redis: redis, keys: keys, pendingTTLMillis: limits.pendingTTLSeconds * 1000))
        var total: Int64 = -1
        for _ in 0..<RedisSlot.count / 2_048 {
            total = try await loop.result { done in sweep.store.run(completion: done) }
        }
        return total
    }

    /// One SEND hit of `from` on `client`'s address, through the rate-limit store.
    func hitSend(client: String, from: WhisperID) async throws -> RateLimitDecision {
        try await loop.result { done in
            let charge = self.limiter.charge(.send, subjects: [.ip(client), .identity(from.string)])
            RedisRateLimitStore(redis: self.redis, keys: self.keys).hit(charge.buckets, nonce: charge.nonce, completion: done)
        }
    }

    func setEpoch(_ group: GroupStamp) async throws {
        try await command(["SET", keys.groupEpoch(group.groupId), Array(group.epoch.utf8)])
    }

    func keptEvents(_ user: WhisperID) async throws -> [RedisValue] {
        try await command(["LRANGE", keys.events(user), Array("0".utf8), Array("-1".utf8)]).array ?? []
    }

    /// Hits in the SEND log of `subject` (`id:<wid>` or `ip:<address>`).
    func hits(subject: String) async throws -> Int64 {
        try await command(["ZCARD", keys.rateLimit(subject: subject, action: .send)]).integer ?? -1
    }
}
