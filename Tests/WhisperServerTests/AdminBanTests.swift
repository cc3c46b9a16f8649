import Foundation
import Testing
import WhisperTesting

/// A ban takes effect at once on every node, and an unban or an expired ban lets the
/// identity back in (docs/protocol.md "Admin API", docs/operations.md "Bans").
@Suite(.serialized) struct AdminBanTests {
    @Test func ban_onNodeA_closesTheSocketOnNodeB_refusesLoginAndSends_untilUnban() async throws {
        let cluster = try await TestCluster(Admin.environment())
        defer { cluster.stop() }
        let banned = try Phone.online(cluster.nodeB), sender = try Phone.online(cluster.nodeB)
        let watcher = try Phone.online(cluster.nodeA)
        try sender.sendAccepted(to: banned.id)
        _ = try banned.ws.receiveJSON()  // the message_received

        let reply = try Admin.call(cluster.nodeA, "POST", "/admin/ban", body: #"{"whisperId":"\#(banned.id)","reason":"spam"}"#)
        #expect(reply.status == 200, "\(reply.text)")
        #expect(reply.json?["whisperId"] as? String == banned.id && reply.json?["revokedSessions"] as? Int == 1)
        #expect(reply.json?["until"] is NSNull && reply.json?["active"] as? Bool == true && reply.json?["createdAt"] is Int)
        try banned.ws.expectRevoked(reason: "banned", closeCode: 4003)

        // Its old token is dead everywhere, its login is refused, and it cannot be written to.
        let keys = try TestHTTP.get(port: cluster.nodeB.publicPort, "/users/\(sender.id)/keys",
                                    headers: ["Authorization: Bearer \(banned.token)"])
        #expect(keys.status == 401)
        let ws = try TestWebSocket(port: cluster.nodeA.publicPort)
        #expect(try ws.registerReply(banned.identity, whisperId: banned.id).errorCode == "USER_BANNED")
        let refused = try sender.send(TestMessage(from: sender.id, to: banned.id))
        #expect(refused.errorCode == "FORBIDDEN", "\(refused)")
        let status = try TestHTTP.get(port: cluster.nodeA.publicPort, "/users/\(banned.id)/keys",
                                      headers: ["Authorization: Bearer \(watcher.token)"])
        #expect(status.json?["status"] as? String == "banned")
        // Other identities are untouched.
        try watcher.expectQuiet()
        try sender.expectQuiet()

        // Unban on node A: node B accepts messages for it at once (its cached status is
        // forgotten), and the identity logs in again.
        let lifted = try Admin.call(cluster.nodeA, "POST", "/admin/unban", body: #"{"whisperId":"\#(banned.id)"}"#)
        #expect(lifted.status == 200 && lifted.json?["whisperId"] as? String == banned.id && lifted.json?["reason"] as? String == "spam")
        let accepted = await eventually(within: 2, every: 0.05) {
            (try? sender.send(TestMessage(from: sender.id, to: banned.id)))?.frameType == "message_accepted"
        }
        #expect(accepted, "a send to the unbanned identity was still refused")
        let back = try Phone.online(cluster.nodeB, banned.identity, whisperId: banned.id)
        #expect(back.id == banned.id)
    }

    @Test func timedBan_stopsApplyingOnceItsUntilHasPassed() async throws {
        let server = try await Admin.server()
        defer { server.stop() }
        let phone = try Phone.online(server)
        // Long enough for the ban, the revocation and a refused login on a loaded machine.
        let until = Int(Date().timeIntervalSince1970 * 1000) + 5_000
        let reply = try Admin.call(server, "POST", "/admin/ban", body: #"{"whisperId":"\#(phone.id)","reason":"cool off","until":\#(until)}"#)
        #expect(reply.status == 200 && reply.json?["until"] as? Int == until, "\(reply.text)")
        try phone.ws.expectRevoked(reason: "banned", closeCode: 4003)
        let ws = try TestWebSocket(port: server.publicPort)
        #expect(try ws.registerReply(phone.identity, whisperId: phone.id).errorCode == "USER_BANNED")
        try await Task.sleep(nanoseconds: UInt64(max(0, until - Int(Date().timeIntervalSince1970 * 1000)) + 200) * 1_000_000)
        let login = try ws.login(phone.identity, whisperId: phone.id)
        #expect(login.whisperId == phone.id)
        let listed = Admin.items(try Admin.call(server, "GET", "/admin/bans?limit=200")).first { $0["whisperId"] as? String == phone.id }
        #expect(listed?["active"] as? Bool == false)
    }
}
