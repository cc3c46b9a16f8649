import Foundation
import Testing
import WhisperStorage
import WhisperTesting

/// Groups over real sockets against real PostgreSQL and Redis (docs/protocol.md "Groups"): create, update,
/// the owner rules, pairwise group sends through the 1:1 accept path, kept events.
@Suite(.serialized) struct GroupTests {
    @Test func groupCreate_answersGroupCreated_andEveryOtherMemberGetsACreatedEvent() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let alice = try Phone.online(server), bob = try Phone.online(server), carol = try Phone.online(server)
        let reply = try alice.createGroup(title: "Trip ✈️", members: [bob.id, carol.id, bob.id, alice.id])
        #expect(reply.frameType == "group_created", "\(reply)")
        #expect(reply["requestId"] as? String == "gc")
        let groupId = reply.payload["groupId"] as? String ?? ""
        #expect(groupId.hasPrefix("grp-") && groupId == groupId.lowercased() && UUID(uuidString: String(groupId.dropFirst(4))) != nil)
        #expect(reply.payload["title"] as? String == "Trip ✈️")
        #expect(reply.payload["ownerId"] as? String == alice.id)
        #expect(Set(reply.payload["memberIds"] as? [String] ?? []) == [alice.id, bob.id, carol.id])
        #expect((reply.payload["memberIds"] as? [String])?.count == 3, "repeats are folded")
        for member in [bob, carol] {
            let event = try member.expectGroupEvent("created", groupId: groupId)
            #expect(event.payload["by"] as? String == alice.id)
            #expect(event.payload["ownerId"] as? String == alice.id)
            #expect(Set(event.payload["memberIds"] as? [String] ?? []) == [alice.id, bob.id, carol.id])
        }
        try alice.expectQuiet()
    }

    @Test func groupSend_isAckedDeliveredWithGroupIdReceiptedAndDeduplicated_likeOneToOne() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let alice = try Phone.online(server), bob = try Phone.online(server)
        let groupId = try alice.createdGroup(members: [bob.id])
        try bob.expectGroupEvent("created", groupId: groupId)
        // The groupId as the sender spelt it (upper-case UUID) is what is signed and forwarded.
        let spelt = "grp-" + String(groupId.dropFirst(4)).uppercased()
        let envelope = alice.groupMessage(spelt, to: bob.id)
        let ack = try alice.groupSend(envelope)
        #expect(ack.frameType == "message_accepted", "\(ack)")
        #expect(ack["requestId"] as? String == "gs")
        #expect(ack.payload["messageId"] as? String == envelope["messageId"] as? String)

        let received = try bob.ws.receiveJSON()
        #expect(received.frameType == "message_received", "\(received)")
        let payload = received.payload
        #expect(payload["groupId"] as? String == spelt)
        #expect(Set(payload.keys) == ["messageId", "groupId", "from", "to", "msgType", "timestamp", "nonce", "ciphertext", "sig"])
        let signed = TestMessage.signedBytes(type: "group_send_message", messageId: payload["messageId"] as? String ?? "",
                                             from: alice.id, to: spelt, timestamp: (payload["timestamp"] as? NSNumber)?.int64Value ?? 0,
                                             nonce: payload["nonce"] as? String ?? "", ciphertext: payload["ciphertext"] as? String ?? "")
        let signature = Array(Data(base64Encoded: payload["sig"] as? String ?? "") ?? Data())
        #expect(TestSigningKey.verify(signature: signature, message: TestSHA256.hash(signed), publicKey: alice.identity.signing.publicKey))

        // A repeat: the same ack, nothing queued or delivered again.
        #expect(try alice.groupSend(envelope).frameType == "message_accepted")
        try bob.expectQuiet()
        let pending = try bob.fetchAll().messages
        #expect(pending.count == 1)
        #expect(pending.first?["groupId"] as? String == spelt)
        // Receipted like 1:1: the sender hears of it, and the queue empties.
        let messageId = envelope["messageId"] as? String ?? ""
        #expect(try bob.ws.receipt(messageId: messageId, from: bob.id, to: alice.id, token: bob.token).frameType == "receipt_accepted")
        let delivered = try alice.ws.receiveJSON()
        #expect(delivered.frameType == "message_delivered")
        #expect(delivered.payload["messageId"] as? String == messageId)
        #expect(try bob.fetchAll().messages.isEmpty)
        #expect(try Identity.metricValue(server, "whisper_messages_accepted_total{kind=\"group\"}") == 1)
    }

    @Test func groupCreateRejections_getTheirCodes_andTheSocketKeepsWorking() async throws {
        let server = try await TestServer(["WHISPER_RATE_GROUP": "3/60"])
        defer { server.stop() }
        let alice = try Phone.online(server), bob = try Phone.online(server)
        // 256 others + the creator = 257 members: over the cap, before any member is looked up.
        let many = (0..<256).map { _ in Identity.unregisteredID() }
        #expect(try alice.createGroup(members: many).errorCode == "INVALID_PAYLOAD")
        #expect(try alice.createGroup(members: many + [Identity.unregisteredID()]).errorCode == "INVALID_PAYLOAD")
        #expect(try alice.createGroup(title: "", members: [bob.id]).errorCode == "INVALID_PAYLOAD")
        #expect(try alice.createGroup(title: String(repeating: "é", count: 129), members: [bob.id]).errorCode == "INVALID_PAYLOAD")
        #expect(try alice.createGroup(members: [Identity.withBadChecksum(bob.id)]).errorCode == "INVALID_PAYLOAD")
        #expect(try alice.ws.request(TestWebSocket.privilegedFrame("group_create", token: alice.token,
                                                                   extra: ["title": "x"])).errorCode == "INVALID_PAYLOAD")
        #expect(try alice.createGroup(members: [bob.id, Identity.unregisteredID()]).errorCode == "NOT_FOUND")
        #expect(try alice.ws.request(TestWebSocket.privilegedFrame("group_create", token: nil,
                                                                   extra: ["title": "x", "memberIds": [bob.id]])).errorCode == "NOT_REGISTERED")
        // 255 others + the creator = 256 members: exactly the cap (identities seeded in the database).
        let registered = (0..<255).map { _ in Identity.unregisteredID() }
        let db = try Identity.database()
        defer { db.shutdown() }
        // Each with its own signing key: one identity per key (migration 0005).
        _ = try await db.query("""
            INSERT INTO users (whisper_id, enc_public_key, sign_public_key)
            SELECT id, decode(repeat('00', 32), 'hex'), sha256(convert_to(id, 'UTF8')) FROM unnest($1::text[]) AS id
            """, [.text("{" + registered.joined(separator: ",") + "}")])
        let full = try alice.createGroup(members: registered)
        #expect(full.frameType == "group_created", "\(full)")
        #expect((full.payload["memberIds"] as? [String])?.count == 256)
        _ = try alice.createdGroup(members: [bob.id])
        _ = try bob.ws.receiveJSON()
        let limited = try alice.createGroup(members: [bob.id])
        #expect(limited.errorCode == "RATE_LIMITED", "\(limited)")
        #expect((limited.payload["retryAfterMs"] as? Int64 ?? 0) > 0)
        try alice.expectQuiet()
    }

    @Test func groupUpdate_ownerRules_eachRejectionHasItsCode_andSelfRemovalIsAllowed() async throws {
        let server = try await TestServer(["WHISPER_MAX_GROUP_MEMBERS": "3"])
        defer { server.stop() }
        let alice = try Phone.online(server), bob = try Phone.online(server), carol = try Phone.online(server)
        let dave = try Phone.online(server)
        let groupId = try alice.createdGroup(members: [bob.id])
        try bob.expectGroupEvent("created", groupId: groupId)
        // Only the owner adds, removes others, retitles.
        #expect(try bob.updateGroup(groupId, title: "Mine").errorCode == "FORBIDDEN")
        #expect(try bob.updateGroup(groupId, add: [carol.id]).errorCode == "FORBIDDEN")
        #expect(try bob.updateGroup(groupId, remove: [alice.id]).errorCode == "FORBIDDEN")
        #expect(try carol.updateGroup(groupId, remove: [carol.id]).errorCode == "FORBIDDEN", "not a member")
        #expect(try alice.updateGroup("grp-" + UUID().uuidString.lowercased(), title: "x").errorCode == "NOT_FOUND")
        #expect(try alice.updateGroup(groupId, add: [Identity.unregisteredID()]).errorCode == "NOT_FOUND")
        #expect(try alice.updateGroup(groupId).errorCode == "INVALID_PAYLOAD", "nothing to change")
        #expect(try alice.updateGroup(groupId, add: [carol.id], remove: [carol.id]).errorCode == "INVALID_PAYLOAD")
        #expect(try alice.updateGroup("grp-nope", title: "x").errorCode == "INVALID_PAYLOAD")
        // Over WHISPER_MAX_GROUP_MEMBERS=3.
        #expect(try alice.updateGroup(groupId, add: [carol.id, dave.id]).errorCode == "INVALID_PAYLOAD")
        try bob.expectQuiet()

        // The owner adds carol and retitles: the caller gets group_updated, the others group_event.
        let updated = try alice.updateGroup(groupId, add: [carol.id], title: "Renamed")
        #expect(updated.frameType == "group_updated", "\(updated)")
        #expect(updated["requestId"] as? String == "gu")
        #expect(updated.payload["title"] as? String == "Renamed")
        #expect((updated.payload["memberIds"] as? [String])?.last == carol.id, "the newest member comes last")
        #expect(updated.payload["added"] as? [String] == [carol.id])
        #expect(updated.payload["deleted"] as? Bool == false)
        for member in [bob, carol] {
            let event = try member.expectGroupEvent("updated", groupId: groupId)
            #expect(event.payload["title"] as? String == "Renamed")
            #expect(event.payload["added"] as? [String] == [carol.id])
        }
        // Any member may leave: bob removes himself; alice and carol hear of it, bob gets the reply.
        let left = try bob.updateGroup(groupId, remove: [bob.id])
        #expect(left.frameType == "group_updated", "\(left)")
        #expect(left.payload["removed"] as? [String] == [bob.id])
        #expect(Set(left.payload["memberIds"] as? [String] ?? []) == [alice.id, carol.id])
        for member in [alice, carol] { try member.expectGroupEvent("updated", groupId: groupId) }
        // The owner removes carol: carol (a member before the change) is told too.
        #expect(try alice.updateGroup(groupId, remove: [carol.id]).frameType == "group_updated")
        let removed = try carol.expectGroupEvent("updated", groupId: groupId)
        #expect(removed.payload["removed"] as? [String] == [carol.id])
        #expect(try bob.updateGroup(groupId, title: "back?").errorCode == "FORBIDDEN")
        for phone in [alice, bob, carol, dave] { try phone.expectQuiet() }
    }

    @Test func ownerLeaving_handsOwnershipToTheLongestStandingMember_andTheLastToLeaveDeletesTheGroup() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let alice = try Phone.online(server), bob = try Phone.online(server), carol = try Phone.online(server)
        let groupId = try alice.createdGroup(members: [bob.id])
        try bob.expectGroupEvent("created", groupId: groupId)
        #expect(try alice.updateGroup(groupId, add: [carol.id]).frameType == "group_updated")
        try bob.expectGroupEvent("updated", groupId: groupId)
        try carol.expectGroupEvent("updated", groupId: groupId)
        // Alice leaves: bob joined at creation, before carol, so bob owns it now.
        let left = try alice.updateGroup(groupId, remove: [alice.id])
        #expect(left.payload["ownerId"] as? String == bob.id, "\(left)")
        #expect(left.payload["memberIds"] as? [String] == [bob.id, carol.id])
        #expect(try bob.expectGroupEvent("updated", groupId: groupId).payload["ownerId"] as? String == bob.id)
        try carol.expectGroupEvent("updated", groupId: groupId)
        // The new owner may retitle; the old one is no longer a member.
        #expect(try bob.updateGroup(groupId, title: "Bob's").frameType == "group_updated")
        try carol.expectGroupEvent("updated", groupId: groupId)
        #expect(try alice.updateGroup(groupId, remove: [alice.id]).errorCode == "FORBIDDEN")
        // Bob leaves → carol owns it; carol leaves → the group is gone.
        #expect(try bob.updateGroup(groupId, remove: [bob.id]).payload["ownerId"] as? String == carol.id)
        try carol.expectGroupEvent("updated", groupId: groupId)
        let last = try carol.updateGroup(groupId, remove: [carol.id])
        #expect(last.payload["deleted"] as? Bool == true, "\(last)")
        #expect((last.payload["memberIds"] as? [String])?.isEmpty == true)
        #expect(try carol.updateGroup(groupId, add: [bob.id]).errorCode == "NOT_FOUND")
        #expect(try carol.groupSend(carol.groupMessage(groupId, to: bob.id)).errorCode == "NOT_FOUND")
        for phone in [alice, bob, carol] { try phone.expectQuiet() }
    }

    @Test func groupSendRejections_getTheirCodes_andTheSocketKeepsWorking() async throws {
        let server = try await TestServer(["WHISPER_RATE_SEND": "2/60"])
        defer { server.stop() }
        let alice = try Phone.online(server), bob = try Phone.online(server), mallory = try Phone.online(server)
        let groupId = try alice.createdGroup(members: [bob.id])
        try bob.expectGroupEvent("created", groupId: groupId)
        func code(_ payload: [String: Any], by phone: Phone? = nil) throws -> String? {
            try (phone ?? alice).groupSend(payload).errorCode
        }
        #expect(try code(alice.groupMessage(groupId, to: bob.id, from: bob.id)) == "FORBIDDEN", "from ≠ session")
        #expect(try code(alice.groupMessage(groupId, to: bob.id, timestamp: TestMessage.nowMillis() - 11 * 60_000))
                    == "INVALID_TIMESTAMP")
        #expect(try code(alice.groupMessage(groupId, to: bob.id, signAs: "send_message")) == "AUTH_FAILED")
        #expect(try code(alice.groupMessage("grp-" + UUID().uuidString.lowercased(), to: bob.id)) == "NOT_FOUND")
        #expect(try code(mallory.groupMessage(groupId, to: bob.id), by: mallory) == "FORBIDDEN", "sender not a member")
        #expect(try code(alice.groupMessage(groupId, to: mallory.id)) == "FORBIDDEN", "recipient not a member")
        var noGroup = alice.groupMessage(groupId, to: bob.id)
        noGroup["groupId"] = nil
        #expect(try code(noGroup) == "INVALID_PAYLOAD")
        #expect(try code(alice.groupMessage("grp-123", to: bob.id)) == "INVALID_PAYLOAD")
        // groupId is not a send_message field.
        let direct = TestWebSocket.privilegedFrame("send_message", token: alice.token,
                                                   extra: alice.groupMessage(groupId, to: bob.id, signAs: "send_message"))
        #expect(try alice.ws.request(direct).errorCode == "INVALID_PAYLOAD")
        // The SEND rate limit counts group sends (rejections above did not count).
        #expect(try alice.groupSend(alice.groupMessage(groupId, to: bob.id)).frameType == "message_accepted")
        #expect(try alice.groupSend(alice.groupMessage(groupId, to: bob.id)).frameType == "message_accepted")
        #expect(try code(alice.groupMessage(groupId, to: bob.id)) == "RATE_LIMITED")
        try alice.expectQuiet()
        try mallory.expectQuiet()
    }

    @Test func offlineMember_getsItsKeptGroupEventsInOrder_rightAfterLogin() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let alice = try Phone.online(server)
        let carolIdentity = TestIdentity()
        let carol = try Phone.online(server, carolIdentity)
        carol.ws.socket.close()
        await Messaging.waitForAuthenticated(server, count: 1)
        let groupId = try alice.createdGroup(title: "One", members: [carol.id])
        #expect(try alice.updateGroup(groupId, title: "Two").frameType == "group_updated")
        #expect(try alice.updateGroup(groupId, title: "Three").frameType == "group_updated")
        let back = try Phone.online(server, carolIdentity, whisperId: carol.id)
        #expect(try back.expectGroupEvent("created", groupId: groupId).payload["title"] as? String == "One")
        #expect(try back.expectGroupEvent("updated", groupId: groupId).payload["title"] as? String == "Two")
        #expect(try back.expectGroupEvent("updated", groupId: groupId).payload["title"] as? String == "Three")
        try back.expectQuiet()
        // Kept events are sent once.
        let again = try back.reconnect(server)
        try again.expectQuiet()
    }
}
