import Foundation
import Testing
import WhisperProtocol
import WhisperTesting

/// 1:1 messaging over real sockets against real Redis and PostgreSQL: live delivery, the
/// validation chain, idempotency, the durable pending queue with paging, receipts.
@Suite(.serialized) struct MessagingTests {
    @Test func liveDelivery_carriesTheSendersBytes_andTheReceiverVerifiesTheSignature() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let alice = try Phone.online(server), bob = try Phone.online(server)
        let reaction: [String: Any] = ["👍": [bob.id]]
        let message = TestMessage(from: alice.id, to: bob.id, messageId: UUID().uuidString.uppercased(),
                                  extra: ["replyTo": UUID().uuidString.lowercased(), "reactions": reaction,
                                          "attachment": NSNull()])
        let ack = try alice.send(message, requestId: "r-42")
        #expect(ack.frameType == "message_accepted", "\(ack)")
        #expect(ack["requestId"] as? String == "r-42")
        #expect(ack.payload["messageId"] as? String == message.messageId, "echoed as sent, not case-folded")
        #expect(ack.payload["status"] as? String == "sent")
        #expect(abs((ack.payload["serverTime"] as? Int64 ?? 0) - TestMessage.nowMillis()) < 60_000)

        let received = try bob.ws.receiveJSON()
        #expect(received.frameType == "message_received")
        #expect(received["requestId"] == nil)
        let payload = received.payload
        #expect(Set(payload.keys) == ["messageId", "from", "to", "msgType", "timestamp", "nonce", "ciphertext", "sig",
                                      "replyTo", "reactions", "attachment"])
        #expect(payload["messageId"] as? String == message.messageId)
        #expect(payload["ciphertext"] as? String == message.ciphertext)
        #expect((payload["reactions"] as? [String: [String]])?["👍"] == [bob.id])
        let signedBytes = TestMessage.signedBytes(
            messageId: payload["messageId"] as? String ?? "", from: payload["from"] as? String ?? "",
            to: payload["to"] as? String ?? "", timestamp: (payload["timestamp"] as? NSNumber)?.int64Value ?? 0,
            nonce: payload["nonce"] as? String ?? "", ciphertext: payload["ciphertext"] as? String ?? "")
        let signature = Array(Data(base64Encoded: payload["sig"] as? String ?? "") ?? Data())
        #expect(TestSigningKey.verify(signature: signature, message: TestSHA256.hash(signedBytes),
                                      publicKey: alice.identity.signing.publicKey))
        // Delivered live but not receipted: still pending.
        #expect(try bob.fetchAll().messages.count == 1)
    }

    @Test func everyRejection_getsItsCode_andTheSocketKeepsWorking() async throws {
        let server = try await TestServer(["WHISPER_RATE_SEND": "3/60"])
        defer { server.stop() }
        let alice = try Phone.online(server), bob = try Phone.online(server)
        func code(_ message: TestMessage, key: TestSigningKey? = nil, token: String? = nil) throws -> String? {
            try alice.ws.send(message, signedBy: key ?? alice.identity.signing, token: token ?? alice.token).errorCode
        }
        // from ≠ session → FORBIDDEN (before the signature is even looked at).
        #expect(try code(TestMessage(from: bob.id, to: alice.id)) == "FORBIDDEN")
        // ±10 min.
        #expect(try code(TestMessage(from: alice.id, to: bob.id, timestamp: TestMessage.nowMillis() - 11 * 60_000))
                    == "INVALID_TIMESTAMP")
        #expect(try code(TestMessage(from: alice.id, to: bob.id, timestamp: TestMessage.nowMillis() + 11 * 60_000))
                    == "INVALID_TIMESTAMP")
        // Signed by another key, or the signature over other bytes → AUTH_FAILED.
        #expect(try code(TestMessage(from: alice.id, to: bob.id), key: .random()) == "AUTH_FAILED")
        var tampered = TestMessage(from: alice.id, to: bob.id)
        let signed = tampered.payload(signedBy: alice.identity.signing)
        tampered.extra = ["sig": signed["sig"] as Any]
        tampered.ciphertext = Data(repeating: 1, count: 48).base64EncodedString()
        #expect(try code(tampered) == "AUTH_FAILED")
        // Unknown recipient → NOT_FOUND; banned recipient → FORBIDDEN.
        #expect(try code(TestMessage(from: alice.id, to: Identity.unregisteredID())) == "NOT_FOUND")
        let banned = try Phone.online(server)
        let db = try Identity.database()
        defer { db.shutdown() }
        _ = try await db.query("INSERT INTO bans (whisper_id, reason, created_by) VALUES ($1, 'spam', 'test')",
                               [.text(banned.id)])
        #expect(try code(TestMessage(from: alice.id, to: banned.id)) == "FORBIDDEN")
        // Schema and session.
        #expect(try code(TestMessage(from: alice.id, to: bob.id, msgType: "video")) == "INVALID_PAYLOAD")
        #expect(try code(TestMessage(from: alice.id, to: bob.id, ciphertextBytes: 8_017)) == "INVALID_PAYLOAD")
        #expect(try code(TestMessage(from: alice.id, to: bob.id), token: Data(repeating: 9, count: 32).base64EncodedString())
                    == "NOT_REGISTERED")
        // Rate limit: 3 sends per minute per identity (rejected sends above did not count).
        for _ in 0..<3 { try alice.sendAccepted(to: bob.id) }
        let limited = try alice.send(TestMessage(from: alice.id, to: bob.id))
        #expect(limited.errorCode == "RATE_LIMITED")
        #expect((limited.payload["retryAfterMs"] as? Int64 ?? 0) > 0)
        try alice.expectQuiet()
        #expect(try Identity.metricValue(server, "whisper_errors_total{code=\"AUTH_FAILED\"}") == 2)
    }

    @Test func duplicate_isAckedAgain_butNeitherQueuedNorDeliveredTwice() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let alice = try Phone.online(server), bob = try Phone.online(server)
        let message = TestMessage(from: alice.id, to: bob.id)
        #expect(try alice.send(message).frameType == "message_accepted")
        #expect(try bob.ws.receiveJSON().frameType == "message_received")
        // The same (from, messageId) again, even in another case and with a fresh signature.
        var again = message
        again.messageId = message.messageId.uppercased()
        let ack = try alice.send(again)
        #expect(ack.frameType == "message_accepted")
        #expect(ack.payload["messageId"] as? String == again.messageId)
        try bob.expectQuiet()
        #expect(try bob.fetchAll().messages.count == 1)
        #expect(try Identity.metricValue(server, "whisper_messages_accepted_total{kind=\"direct\"}") == 1)
    }

    @Test func offlineRecipient_pagesOut120MessagesInOrder_inPagesOf50_exactlyOnce() async throws {
        let server = try await TestServer(["WHISPER_RATE_SEND": "1000/10"])
        defer { server.stop() }
        let alice = try Phone.online(server)
        let bobIdentity = TestIdentity()
        let bob = try Phone.online(server, bobIdentity)
        bob.ws.socket.close()
        var sent: [String] = []
        for _ in 0..<120 { sent.append(try alice.sendAccepted(to: bob.id).messageId) }
        let back = try Phone.online(server, bobIdentity, whisperId: bob.id)
        var ids: [String] = []
        var pages: [Int] = []
        var cursor: String?
        repeat {
            let reply = try back.ws.fetchPending(token: back.token, cursor: cursor)
            let page = reply.payload["messages"] as? [[String: Any]] ?? []
            pages.append(page.count)
            ids += page.compactMap { $0["messageId"] as? String }
            cursor = reply.payload["nextCursor"] as? String
            // A message arriving while paging lands after the cursor: no gap, no duplicate.
            if pages.count == 1 {
                sent.append(try alice.sendAccepted(to: bob.id).messageId)
                #expect(try back.ws.receiveJSON().frameType == "message_received") // live as well
            }
        } while cursor != nil
        #expect(pages == [50, 50, 21])
        #expect(ids == sent)
        #expect(try Identity.metricValue(server, "whisper_messages_delivered_total{path=\"pending\"}") == 121)
    }

    @Test func unreceiptedMessages_comeBackAfterReconnect_andReceiptsRemoveThem() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let alice = try Phone.online(server), bob = try Phone.online(server)
        let live = try alice.sendAccepted(to: bob.id)
        #expect(try bob.ws.receiveJSON().payload["messageId"] as? String == live.messageId)
        let bobAgain = try bob.reconnect(server)
        // The route moved to the new socket before its ack: alice's next message, sent through
        // another loop's Redis link, comes to it live.
        let queued = try alice.sendAccepted(to: bob.id) // live to the new socket
        #expect(try bobAgain.ws.receiveJSON().payload["messageId"] as? String == queued.messageId)
        let pending = try bobAgain.fetchAll().messages.compactMap { $0["messageId"] as? String }
        #expect(pending == [live.messageId, queued.messageId])

        let receipt = try bobAgain.ws.receipt(messageId: live.messageId, from: bob.id, to: alice.id, token: bobAgain.token)
        #expect(receipt.frameType == "receipt_accepted", "\(receipt)")
        #expect(receipt.payload["status"] as? String == "delivered")
        let delivered = try alice.ws.receiveJSON()
        #expect(delivered.frameType == "message_delivered")
        #expect(delivered.payload["messageId"] as? String == live.messageId)
        #expect(delivered.payload["from"] as? String == bob.id)
        #expect(delivered.payload["status"] as? String == "delivered")
        #expect(try bobAgain.fetchAll().messages.compactMap { $0["messageId"] as? String } == [queued.messageId])

        // A repeated delivered receipt is answered and forwarded again (its first answer may
        // have been lost with a node that died before the sender was told); `read` is
        // forwarded and leaves the queue alone.
        #expect(try bobAgain.ws.receipt(messageId: live.messageId, from: bob.id, to: alice.id, token: bobAgain.token)
                    .frameType == "receipt_accepted")
        let again = try alice.ws.receiveJSON()
        #expect(again.frameType == "message_delivered" && again.payload["messageId"] as? String == live.messageId)
        #expect(try bobAgain.fetchAll().messages.count == 1, "a repeat removes nothing more")
        #expect(try bobAgain.ws.receipt(messageId: queued.messageId, from: bob.id, to: alice.id, status: "read",
                                        token: bobAgain.token).frameType == "receipt_accepted")
        #expect(try alice.ws.receiveJSON().payload["status"] as? String == "read")
        #expect(try bobAgain.fetchAll().messages.count == 1)
    }

    @Test func receipts_areChecked_againstTheSessionAndTheMessagesRecipient() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let alice = try Phone.online(server), bob = try Phone.online(server), eve = try Phone.online(server)
        let message = try alice.sendAccepted(to: bob.id)
        #expect(try bob.ws.receiveJSON().frameType == "message_received")
        // Eve cannot receipt Bob's message, nor speak for Bob.
        #expect(try eve.ws.receipt(messageId: message.messageId, from: eve.id, to: alice.id, token: eve.token).errorCode
                    == "NOT_FOUND")
        #expect(try eve.ws.receipt(messageId: message.messageId, from: bob.id, to: alice.id, token: eve.token).errorCode
                    == "FORBIDDEN")
        #expect(try bob.ws.receipt(messageId: UUID().uuidString, from: bob.id, to: alice.id, token: bob.token).errorCode
                    == "NOT_FOUND")
        #expect(try bob.fetchAll().messages.count == 1)
    }

    @Test func receiptForAnOfflineSender_isSentRightAfterItsNextLogin() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let aliceIdentity = TestIdentity()
        let alice = try Phone.online(server, aliceIdentity), bob = try Phone.online(server)
        let first = try alice.sendAccepted(to: bob.id), second = try alice.sendAccepted(to: bob.id)
        alice.ws.socket.close()
        await Messaging.waitForAuthenticated(server, count: 1)
        for _ in 0..<2 { #expect(try bob.ws.receiveJSON().frameType == "message_received") }
        for message in [first, second] {
            #expect(try bob.ws.receipt(messageId: message.messageId, from: bob.id, to: alice.id, token: bob.token)
                        .frameType == "receipt_accepted")
        }
        // Back online: the kept receipts come right after register_ack, in order, once.
        let back = try Phone.online(server, aliceIdentity, whisperId: alice.id)
        let kept = [try back.ws.receiveJSON(), try back.ws.receiveJSON()]
        #expect(kept.map(\.frameType) == ["message_delivered", "message_delivered"])
        #expect(kept.compactMap { $0.payload["messageId"] as? String } == [first.messageId, second.messageId])
        try back.expectQuiet()
        let again = try back.reconnect(server)
        try again.expectQuiet()
    }

    @Test func keptEvents_precedeTheFirstReply_onASocketThatPresentsAToken() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let alice = try Phone.online(server), bob = try Phone.online(server)
        let message = try alice.sendAccepted(to: bob.id)
        alice.ws.socket.close()
        await Messaging.waitForAuthenticated(server, count: 1)
        #expect(try bob.ws.receiveJSON().frameType == "message_received")
        _ = try bob.ws.receipt(messageId: message.messageId, from: bob.id, to: alice.id, token: bob.token)
        // A reconnect that reuses the token (no new login).
        let socket = try TestWebSocket(port: server.publicPort)
        try socket.sendText(String(decoding: try JSONSerialization.data(withJSONObject:
            TestWebSocket.privilegedFrame("fetch_pending", token: alice.token, requestId: "f", extra: [:])), as: UTF8.self))
        #expect(try socket.receiveJSON().frameType == "message_delivered")
        #expect(try socket.receiveJSON().frameType == "pending_messages")
    }

    @Test func acrossNodes_liveDeliveryAndReceiptsGoThroughRedis() async throws {
        let cluster = try await TestCluster()
        defer { cluster.stop() }
        let (nodeA, nodeB) = (cluster.nodeA, cluster.nodeB)
        let alice = try Phone.online(nodeA), bob = try Phone.online(nodeB)
        let message = try alice.sendAccepted(to: bob.id)
        let received = try bob.ws.receiveJSON()
        #expect(received.frameType == "message_received")
        #expect(received.payload["messageId"] as? String == message.messageId)
        #expect(try bob.ws.receipt(messageId: message.messageId, from: bob.id, to: alice.id, token: bob.token)
                    .frameType == "receipt_accepted")
        #expect(try alice.ws.receiveJSON().frameType == "message_delivered")
        #expect(try Identity.metricValue(nodeB, "whisper_messages_delivered_total{path=\"live\"}") == 1)
        #expect(try Identity.metricValue(nodeB, "whisper_routing_latency_seconds_count") == 1)
    }

    /// A drain's 1001 is out and the sender has not answered it yet: its socket takes no more
    /// frames, so a `message_delivered` routed to it now is kept for its next login, not dropped.
    @Test func aReceiptForASenderWhoseSocketIsClosingInADrain_isKeptForItsNextLogin() async throws {
        let cluster = try await TestCluster()
        defer { cluster.stop() }
        let alice = try Phone.online(cluster.nodeA), bob = try Phone.online(cluster.nodeB)
        let message = try alice.sendAccepted(to: bob.id)
        #expect(try bob.ws.receiveJSON().frameType == "message_received")
        let draining = Task { await cluster.nodeA.server.drain() }
        #expect(try alice.ws.receiveClose() == 1001, "not answered: the socket stays closing")
        #expect(try bob.ws.receipt(messageId: message.messageId, from: bob.id, to: alice.id, token: bob.token)
                    .frameType == "receipt_accepted")
        // Published to node A, which finds Alice's socket closing (a notice processed after the
        // close finds no socket and keeps the frame as well).
        try await Task.sleep(nanoseconds: 300_000_000)
        alice.ws.socket.close()
        await draining.value

        let again = try Phone.online(cluster.nodeB, alice.identity, whisperId: alice.id)
        var types: [String] = []
        while types.count < 5, types.last != "message_delivered" {
            let frame = try again.ws.receiveJSON()
            types.append(frame.frameType ?? "?")
            if frame.frameType == "message_delivered" { #expect(frame.payload["messageId"] as? String == message.messageId) }
        }
        #expect(types.last == "message_delivered", "\(types)")
    }

    @Test func fullQueue_refusesWithRateLimited_andAcceptsAgainOnceReceipted() async throws {
        let server = try await TestServer(["WHISPER_MAX_PENDING_PER_USER": "2"])
        defer { server.stop() }
        let alice = try Phone.online(server), bob = try Phone.online(server)
        let first = try alice.sendAccepted(to: bob.id)
        try alice.sendAccepted(to: bob.id)
        #expect(try alice.send(TestMessage(from: alice.id, to: bob.id)).errorCode == "RATE_LIMITED")
        _ = try bob.ws.receipt(messageId: first.messageId, from: bob.id, to: alice.id, token: bob.token)
        #expect(try alice.ws.receiveJSON().frameType == "message_delivered")
        try alice.sendAccepted(to: bob.id)
    }

    @Test func fetchPending_validatesItsPaging() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let bob = try Phone.online(server)
        #expect(try bob.ws.fetchPending(token: bob.token, limit: 0).errorCode == "INVALID_PAYLOAD")
        #expect(try bob.ws.fetchPending(token: bob.token, limit: 201).errorCode == "INVALID_PAYLOAD")
        #expect(try bob.ws.fetchPending(token: bob.token, cursor: "nope").errorCode == "INVALID_PAYLOAD")
        let empty = try bob.ws.fetchPending(token: bob.token, limit: 200)
        #expect(empty.frameType == "pending_messages")
        #expect((empty.payload["messages"] as? [Any])?.isEmpty == true)
        #expect(empty.payload["nextCursor"] == nil)
    }

    @Test func pendingGauge_andDirectPeers_areRecorded() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let alice = try Phone.online(server), bob = try Phone.online(server)
        try alice.sendAccepted(to: bob.id)
        let redis = try Identity.redis()
        let prefix = server.config.redisPrefix
        #expect(try redis.command(["ZSCORE", prefix + "peers:{" + alice.id + "}", bob.id]).text != nil)
        #expect(try redis.command(["ZSCORE", prefix + "peers:{" + bob.id + "}", alice.id]).text != nil)
        let ttl = try redis.command(["PTTL", prefix + "peers:{" + alice.id + "}"])
        if case .integer(let ms) = ttl { #expect(ms > 29 * 86_400_000 && ms <= 30 * 86_400_000) } else { Issue.record("\(ttl)") }
        // The heartbeat refreshes the gauge every 5 s.
        var gauge: Double?
        for _ in 0..<140 where gauge != 1 {
            gauge = try Identity.metricValue(server, "whisper_pending_messages")
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        #expect(gauge == 1)
    }

    /// A standalone Redis counts every queue in one `pending-count` and indexes them in one
    /// `pending-index` (`PendingSlots`; a cluster keeps a pair per slot): the heartbeat sweeps a
    /// queue that expired whole out of both, and the gauge is what is left.
    @Test func heartbeat_sweepsAQueueThatExpiredWhole_andTheGaugeCountsTheRest() async throws {
        let prefix = "test-\(UUID().uuidString.prefix(8).lowercased()):"
        let redis = try Identity.redis()
        let stale = WhisperID.random().string, stream = prefix + "pending:{" + stale + "}"
        _ = try redis.command(["SET", prefix + "layout", "2"])
        _ = try redis.command(["XADD", stream, "1-1", "m", "{}"])
        _ = try redis.command(["SET", prefix + "pending-count", "5"])
        _ = try redis.command(["ZADD", prefix + "pending-index", "1", stale])
        let server = try await TestServer(["WHISPER_REDIS_PREFIX": prefix])
        defer { server.stop() }
        let alice = try Phone.online(server), bob = try Phone.online(server)
        try alice.sendAccepted(to: bob.id)
        // 4 other queued messages, the stale one swept, and the new one.
        var gauge: Double?
        for _ in 0..<140 where gauge != 5 {
            gauge = try Identity.metricValue(server, "whisper_pending_messages")
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        #expect(gauge == 5)
        #expect(try redis.command(["EXISTS", stream]) == .integer(0))
        #expect(try redis.command(["GET", prefix + "pending-count"]).text == "5")
        #expect(try redis.command(["ZRANGE", prefix + "pending-index", "0", "-1"]) == .array([.bulk(Array(bob.id.utf8))]))
    }

    @Test func fetchPending_isRateLimitedPerIdentity_withRetryAfter_andTheSocketKeepsWorking() async throws {
        let server = try await TestServer(["WHISPER_RATE_FETCH": "2/60"])
        defer { server.stop() }
        let bob = try Phone.online(server)
        for _ in 0..<2 { #expect(try bob.ws.fetchPending(token: bob.token).frameType == "pending_messages") }
        let refused = try bob.ws.fetchPending(token: bob.token)
        #expect(refused.errorCode == "RATE_LIMITED", "\(refused)")
        #expect(refused["requestId"] as? String == "fetch")
        let retryAfter = refused.payload["retryAfterMs"] as? Int64 ?? -1
        #expect(retryAfter > 55_000 && retryAfter <= 60_000, "\(retryAfter)")
        #expect(try Identity.metricValue(server, #"whisper_rate_limited_total{action="fetch"}"#) == 1)
        try bob.expectQuiet()
        // Another identity from the same address has its own FETCH budget per whisperId.
        let carol = try Phone.online(server)
        #expect(try carol.ws.fetchPending(token: carol.token).frameType == "pending_messages")
    }
}
