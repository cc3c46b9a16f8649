import Foundation
import Testing
import WhisperTesting

/// How an envelope is identified (contract §15, docs/protocol.md "Idempotency"): the key is
/// (`from`, `to`, `messageId`), so a group message keeps one `messageId` across its envelopes;
/// a group message costs one SEND hit; `message_delivered` names the message as its sender
/// spelt it; records written before the upgrade still take their receipts.
@Suite(.serialized) struct EnvelopeIdentityTests {
    @Test func groupMessage_withOneMessageIdForEveryMember_reachesEach_andEachReceiptNamesItsMember() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let alice = try Phone.online(server), bob = try Phone.online(server), carol = try Phone.online(server)
        let groupId = try alice.createdGroup(members: [bob.id, carol.id])
        for member in [bob, carol] { try member.expectGroupEvent("created", groupId: groupId) }

        // Upper case, as some clients write ids: every copy the sender gets back keeps it.
        let messageId = UUID().uuidString.uppercased()
        for member in [bob, carol] {
            let ack = try alice.groupSend(alice.groupMessage(groupId, to: member.id, messageId: messageId))
            #expect(ack.frameType == "message_accepted", "\(ack)")
            #expect(ack.payload["messageId"] as? String == messageId)
        }
        for member in [bob, carol] {
            let received = try member.ws.receiveJSON()
            #expect(received.frameType == "message_received", "\(received)")
            #expect(received.payload["messageId"] as? String == messageId)
            #expect(received.payload["to"] as? String == member.id)
        }
        // The same envelope again is still a repeat: acknowledged, neither queued nor delivered.
        #expect(try alice.groupSend(alice.groupMessage(groupId, to: bob.id, messageId: messageId.lowercased())).frameType
                    == "message_accepted")
        try bob.expectQuiet()
        #expect(try bob.fetchAll().messages.count == 1)
        #expect(try Identity.metricValue(server, "whisper_messages_accepted_total{kind=\"group\"}") == 2)

        // Each member's receipt is its own: the sender learns who received which envelope.
        for member in [bob, carol] {
            #expect(try member.ws.receipt(messageId: messageId.lowercased(), from: member.id, to: alice.id, token: member.token)
                        .frameType == "receipt_accepted")
            let delivered = try alice.ws.receiveJSON()
            #expect(delivered.frameType == "message_delivered", "\(delivered)")
            #expect(delivered.payload["messageId"] as? String == messageId)
            #expect(delivered.payload["from"] as? String == member.id)
            #expect(try member.fetchAll().messages.isEmpty)
        }
        // A second delivered receipt removes nothing more and tells the sender again, about
        // Bob's envelope only (its first answer may have been lost).
        #expect(try bob.ws.receipt(messageId: messageId, from: bob.id, to: alice.id, token: bob.token).frameType == "receipt_accepted")
        let again = try alice.ws.receiveJSON()
        #expect(again.frameType == "message_delivered" && again.payload["from"] as? String == bob.id, "\(again)")
        try alice.expectQuiet()
    }

    @Test func directMessageId_reusedForAnotherRecipient_isANewEnvelope() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let alice = try Phone.online(server), bob = try Phone.online(server), carol = try Phone.online(server)
        let toBob = try alice.sendAccepted(to: bob.id)
        #expect(try alice.send(TestMessage(from: alice.id, to: carol.id, messageId: toBob.messageId)).frameType == "message_accepted")
        for member in [bob, carol] {
            let received = try member.ws.receiveJSON()
            #expect(received.frameType == "message_received" && received.payload["messageId"] as? String == toBob.messageId)
        }
        #expect(try Identity.metricValue(server, "whisper_messages_accepted_total{kind=\"direct\"}") == 2)
    }

    @Test func groupMessage_costsOneSendHit_howeverManyEnvelopes() async throws {
        let server = try await TestServer(["WHISPER_RATE_SEND": "2/60"])
        defer { server.stop() }
        let alice = try Phone.online(server), bob = try Phone.online(server), carol = try Phone.online(server)
        let groupId = try alice.createdGroup(members: [bob.id, carol.id])
        for member in [bob, carol] { try member.expectGroupEvent("created", groupId: groupId) }
        for _ in 0..<2 {
            let messageId = UUID().uuidString.lowercased()
            for member in [bob, carol] {
                #expect(try alice.groupSend(alice.groupMessage(groupId, to: member.id, messageId: messageId)).frameType
                            == "message_accepted")
            }
        }
        // Two messages of two envelopes each used the two hits: the third message is refused.
        let refused = try alice.groupSend(alice.groupMessage(groupId, to: bob.id))
        #expect(refused.errorCode == "RATE_LIMITED", "\(refused)")
        for member in [bob, carol] {
            for _ in 0..<2 { #expect(try member.ws.receiveJSON().frameType == "message_received") }
            try member.expectQuiet()
        }
    }

    /// The case: the default SEND limit (100 per 10 s) and a group larger than it.
    @Test func groupMessage_to120Members_atTheDefaultSendLimit_reachesEveryMember() async throws {
        let server = try await TestServer(["WHISPER_RATE_REGISTER_IP": "1000/300"])
        defer { server.stop() }
        let alice = try Phone.online(server)
        let members = try (0..<120).map { _ in try Phone.online(server) }
        let groupId = try alice.createdGroup(members: members.map(\.id))
        for member in members { try member.expectGroupEvent("created", groupId: groupId) }
        let messageId = UUID().uuidString.lowercased()
        for member in members {
            let ack = try alice.groupSend(alice.groupMessage(groupId, to: member.id, messageId: messageId))
            #expect(ack.frameType == "message_accepted", "\(ack)")
        }
        for member in members {
            let received = try member.ws.receiveJSON()
            #expect(received.frameType == "message_received" && received.payload["messageId"] as? String == messageId,
                    "\(received)")
        }
        #expect(try Identity.metricValue(server, "whisper_messages_accepted_total{kind=\"group\"}") == 120)
    }

    @Test func messageDelivered_carriesTheSendersSpelling_liveAndAfterTheNextLogin() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let aliceIdentity = TestIdentity()
        let alice = try Phone.online(server, aliceIdentity), bob = try Phone.online(server)
        let live = TestMessage(from: alice.id, to: bob.id, messageId: UUID().uuidString.uppercased())
        let kept = TestMessage(from: alice.id, to: bob.id, messageId: UUID().uuidString.uppercased())
        for message in [live, kept] { #expect(try alice.send(message).frameType == "message_accepted") }
        for _ in 0..<2 { #expect(try bob.ws.receiveJSON().frameType == "message_received") }

        // The receipt spells the id in lower case; the sender gets its own spelling back.
        _ = try bob.ws.receipt(messageId: live.messageId.lowercased(), from: bob.id, to: alice.id, token: bob.token)
        let delivered = try alice.ws.receiveJSON()
        #expect(delivered.frameType == "message_delivered" && delivered.payload["messageId"] as? String == live.messageId,
                "\(delivered)")

        // Offline: the kept event, written in Redis, carries it too.
        alice.ws.socket.close()
        await Messaging.waitForAuthenticated(server, count: 1)
        _ = try bob.ws.receipt(messageId: kept.messageId.lowercased(), from: bob.id, to: alice.id, token: bob.token)
        let back = try Phone.online(server, aliceIdentity, whisperId: alice.id)
        let event = try back.ws.receiveJSON()
        #expect(event.frameType == "message_delivered" && event.payload["messageId"] as? String == kept.messageId, "\(event)")
    }

    /// A server before 2026-11-26 recorded `msg:<from>:<id>` → "<to> <entry>": a message queued
    /// then is still receipted, and leaves the queue, after the upgrade.
    @Test func receipt_ofAMessageRecordedBeforeTheUpgrade_emptiesTheQueue_andTellsTheSender() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let alice = try Phone.online(server), bob = try Phone.online(server)
        let message = try alice.sendAccepted(to: bob.id)
        #expect(try bob.ws.receiveJSON().frameType == "message_received")

        // Rewrite the record the way the old server wrote it.
        let redis = try Identity.redis()
        let prefix = server.config.redisPrefix
        let record = "\(prefix)msg:{\(bob.id)}:\(alice.id):\(message.messageId)"
        let stored = try #require(try redis.command(["GET", record]).text)
        let entry = try #require(stored.split(separator: " ").first.map(String.init))
        _ = try redis.command(["SET", "\(prefix)msg:\(alice.id):\(message.messageId)", "\(bob.id) \(entry)", "PX", "600000"])
        _ = try redis.command(["DEL", record])

        let spelt = message.messageId.uppercased()
        #expect(try bob.ws.receipt(messageId: spelt, from: bob.id, to: alice.id, token: bob.token).frameType == "receipt_accepted")
        let delivered = try alice.ws.receiveJSON()
        #expect(delivered.frameType == "message_delivered" && delivered.payload["messageId"] as? String == spelt, "\(delivered)")
        #expect(try bob.fetchAll().messages.isEmpty)
        // A second receipt removes nothing more; the sender is told again.
        #expect(try bob.ws.receipt(messageId: spelt, from: bob.id, to: alice.id, token: bob.token).frameType == "receipt_accepted")
        #expect(try alice.ws.receiveJSON().frameType == "message_delivered")
        #expect(try bob.fetchAll().messages.isEmpty)
        try alice.expectQuiet()
        // Another recipient's receipt for it is still unknown.
        let carol = try Phone.online(server)
        #expect(try carol.ws.receipt(messageId: spelt, from: carol.id, to: alice.id, token: carol.token).errorCode == "NOT_FOUND")
    }
}
