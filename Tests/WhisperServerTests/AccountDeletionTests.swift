import Foundation
import Testing
@testable import WhisperServer
import WhisperStorage
import WhisperTesting
@testable import WhisperStores

/// `delete_account` over real sockets against PostgreSQL and Redis (docs/protocol.md
/// "delete_account → account_deleted", docs/security.md "Account deletion").
@Suite(.serialized) struct AccountDeletionTests {
    @Test func deletion_removesKeysQueueBackupAndDevices_closesTheSocketOnTheOtherNode_andRetiresTheID() async throws {
        let cluster = try await TestCluster()
        defer { cluster.stop() }
        let (nodeA, nodeB) = (cluster.nodeA, cluster.nodeB)
        let alice = try Phone.online(nodeA), bob = try Phone.online(nodeA)
        let redis = try Identity.redis()
        let pendingKey = cluster.prefix + "pending:{" + alice.id + "}", countKey = cluster.prefix + "pending-count"
        for _ in 0..<3 { try bob.sendAccepted(to: alice.id) }
        for _ in 0..<3 { #expect(try alice.ws.receiveJSON().frameType == "message_received") }
        #expect(try redis.command(["XLEN", pendingKey]) == .integer(3))
        let countBefore = Int64(try redis.command(["GET", countKey]).text ?? "") ?? 0
        #expect(try ContactsBackupTests.call(nodeA, "PUT", token: alice.token,
                                             body: ContactsBackupTests.upload(ciphertextBytes: 64)).status == 200)
        // The same session on a socket of node B (its first privileged frame binds it).
        let second = try TestWebSocket(port: nodeB.publicPort)
        #expect(try second.fetchPending(token: alice.token).frameType == "pending_messages")

        let reply = try alice.deleteAccount()
        #expect(reply.frameType == "account_deleted", "\(reply)")
        #expect(reply["requestId"] as? String == "del" && reply.payload.isEmpty)
        #expect(try alice.ws.receiveClose() == 4004)
        try second.expectRevoked(reason: "account_deleted", closeCode: 4004)

        // Redis: the queue is gone and the total no longer counts it.
        #expect(try redis.command(["EXISTS", pendingKey]) == .integer(0))
        #expect(Int64(try redis.command(["GET", countKey]).text ?? "") == countBefore - 3)
        // The keys are gone: 404 on both nodes, like an id never registered.
        for node in [nodeA, nodeB] {
            let keys = try TestHTTP.get(port: node.publicPort, "/users/\(alice.id)/keys", headers: ["Authorization: Bearer \(bob.token)"])
            #expect(keys.status == 404, "\(keys.text)")
        }
        let old = try TestHTTP.get(port: nodeB.publicPort, "/users/\(bob.id)/keys", headers: ["Authorization: Bearer \(alice.token)"])
        #expect(old.status == 401)
        // No node accepts a message for it any more (its cached recipient status was dropped).
        let refused = await eventually(within: 2, every: 0.05) {
            (try? bob.send(TestMessage(from: bob.id, to: alice.id)))?.errorCode == "NOT_FOUND"
        }
        #expect(refused, "a message to the deleted identity was still accepted")

        // It can never log in again; its keys alone make a new identity, never this one.
        let ws = try TestWebSocket(port: nodeB.publicPort)
        #expect(try ws.registerReply(alice.identity, whisperId: alice.id).errorCode == "AUTH_FAILED")
        let fresh = try ws.login(alice.identity.onNewDevice())
        #expect(fresh.whisperId != alice.id)

        let db = try Identity.database()
        defer { db.shutdown() }
        for table in ["users", "devices", "contact_backups", "group_members"] {
            let rows = try await db.query("SELECT count(*) AS n FROM \(table) WHERE whisper_id = $1", [.text(alice.id)])
            #expect(rows.first?.int64("n") == 0, "\(table)")
        }
        let retired = try await db.query("SELECT count(*) AS n FROM deleted_identities WHERE whisper_id = $1", [.text(alice.id)])
        #expect(retired.first?.int64("n") == 1)
        let audit = try await db.query("SELECT actor, target, details::text AS details, client_address FROM audit_events WHERE action = 'account_deleted' AND target = $1",
                                       [.text(alice.id)])
        #expect(audit.count == 1 && audit.first?.string("actor") == alice.id && audit.first?.isNull("client_address") == true)
        let details = audit.first?.string("details") ?? ""
        #expect(!details.contains(alice.identity.signPublicKeyBase64) && !details.contains(alice.identity.encPublicKeyBase64)
                && !details.contains(alice.token), "\(details)")

        // The id is never minted again: the registration insert refuses it.
        let minted = try await db.query(PostgresIdentityStore.createSQL, [
            .text(alice.id), .bytea([UInt8](repeating: 3, count: 32)), .bytea(TestSigningKey.random().publicKey),
            .text(UUID().uuidString), .text("ios"), nil, nil])
        #expect(minted.affectedRows == 0)
        let users = try await db.query("SELECT count(*) AS n FROM users WHERE whisper_id = $1", [.text(alice.id)])
        #expect(users.first?.int64("n") == 0)
    }

    @Test func deletion_leavesEachGroup_asIfTheIdentityLeftIt() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let alice = try Phone.online(server), bob = try Phone.online(server), carol = try Phone.online(server)
        let group = try alice.createdGroup(members: [bob.id, carol.id])
        try bob.expectGroupEvent("created", groupId: group)
        try carol.expectGroupEvent("created", groupId: group)

        #expect(try alice.deleteAccount().frameType == "account_deleted")
        let remaining = [bob.id, carol.id].sorted()
        for member in [bob, carol] {
            let event = try member.expectGroupEvent("updated", groupId: group).payload
            #expect(event["by"] as? String == alice.id)
            #expect(event["removed"] as? [String] == [alice.id])
            #expect(event["memberIds"] as? [String] == remaining)
            #expect(event["ownerId"] as? String == remaining[0], "ownership passes to the longest-standing member")
            #expect(event["deleted"] as? Bool == false)
        }
        // The group lives on without it.
        let envelope = bob.groupMessage(group, to: carol.id)
        #expect(try bob.groupSend(envelope).frameType == "message_accepted")
    }

    @Test func refusals_leaveTheIdentityAndTheSocketIntact() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let alice = try Phone.online(server), bob = try Phone.online(server)
        #expect(try alice.deleteAccount(whisperId: bob.id).errorCode == "FORBIDDEN")
        #expect(try alice.deleteAccount(timestamp: TestMessage.nowMillis() - 11 * 60_000).errorCode == "INVALID_TIMESTAMP")
        #expect(try alice.deleteAccount(signAs: "send_message").errorCode == "AUTH_FAILED")
        #expect(try alice.deleteAccount(signedBy: bob.identity.signing).errorCode == "AUTH_FAILED")
        var frame = alice.deleteAccountFrame()
        frame["payload"] = (frame["payload"] as? [String: Any] ?? [:]).filter { $0.key != "sig" }
        #expect(try alice.ws.request(frame).errorCode == "INVALID_PAYLOAD")
        var anonymous = alice.deleteAccountFrame()
        anonymous["payload"] = (anonymous["payload"] as? [String: Any] ?? [:]).filter { $0.key != "sessionToken" }
        #expect(try alice.ws.request(anonymous).errorCode == "NOT_REGISTERED")
        try alice.expectQuiet()
        let keys = try TestHTTP.get(port: server.publicPort, "/users/\(alice.id)/keys", headers: ["Authorization: Bearer \(bob.token)"])
        #expect(keys.status == 200)
    }

    @Test func theFrameSentTwice_deletesOnce_andAnswersBeforeTheClose() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let alice = try Phone.online(server)
        for requestId in ["del-1", "del-2"] {
            let frame = alice.deleteAccountFrame(requestId: requestId)
            try alice.ws.sendText(String(decoding: try JSONSerialization.data(withJSONObject: frame), as: UTF8.self))
        }
        // Both copies run at once; whichever finishes first answers, and the socket closes.
        let reply = try alice.ws.receiveJSON()
        #expect(reply.frameType == "account_deleted" && ["del-1", "del-2"].contains(reply["requestId"] as? String ?? ""),
                "\(reply)")
        #expect(try alice.ws.receiveClose() == 4004)
        let db = try Identity.database()
        defer { db.shutdown() }
        let settled = await eventually(within: 2, every: 0.05) {
            let rows = try? await db.query("SELECT count(*) AS n FROM audit_events WHERE action = 'account_deleted' AND target = $1",
                                           [.text(alice.id)])
            return rows?.first?.int64("n") == 1
        }
        #expect(settled)
        try await Task.sleep(nanoseconds: 300_000_000)
        let audits = try await db.query("SELECT count(*) AS n FROM audit_events WHERE action = 'account_deleted' AND target = $1",
                                        [.text(alice.id)])
        #expect(audits.first?.int64("n") == 1, "the second copy completes without a second audit row")
    }
}

extension Phone {
    /// A `delete_account` frame: signed by this identity over the canonical bytes
    /// (docs/protocol.md "delete_account → account_deleted") unless the arguments say otherwise.
    func deleteAccountFrame(whisperId: String? = nil, timestamp: Int64 = TestMessage.nowMillis(),
                            signAs: String = "delete_account", signedBy key: TestSigningKey? = nil,
                            requestId: String = "del") -> [String: Any] {
        let target = whisperId ?? id
        let bytes = Array("v1\n\(signAs)\n\(target)\n\(timestamp)\n".utf8)
        let sig = Data((key ?? identity.signing).sign(TestSHA256.hash(bytes))).base64EncodedString()
        return TestWebSocket.privilegedFrame("delete_account", token: token, requestId: requestId,
                                             extra: ["whisperId": target, "timestamp": timestamp, "sig": sig])
    }

    func deleteAccount(whisperId: String? = nil, timestamp: Int64 = TestMessage.nowMillis(), signAs: String = "delete_account",
                       signedBy key: TestSigningKey? = nil) throws -> [String: Any] {
        try ws.request(deleteAccountFrame(whisperId: whisperId, timestamp: timestamp, signAs: signAs, signedBy: key))
    }
}
