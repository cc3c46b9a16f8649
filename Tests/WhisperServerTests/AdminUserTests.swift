import Foundation
import Testing
import WhisperTesting

/// `GET /admin/users/{whisperId}` and `POST /admin/users/{whisperId}/sessions/revoke`
/// (docs/protocol.md "Admin API"): what an operator sees of one identity, and logging it out
/// everywhere without a ban.
@Suite(.serialized) struct AdminUserTests {
    @Test func user_showsActiveBannedDeletedAndPreBannedIdentities_404ForUnknown_400ForAMalformedId() async throws {
        let server = try await Admin.server()
        defer { server.stop() }
        let before = Int(Date().timeIntervalSince1970 * 1000) - 1_000
        let active = try Phone.online(server, TestIdentity(platform: "android"))
        let shown = try Admin.call(server, "GET", "/admin/users/\(active.id)")
        #expect(shown.status == 200, "\(shown.text)")
        #expect(shown.json?["whisperId"] as? String == active.id && shown.json?["status"] as? String == "active")
        #expect(shown.json?["ban"] is NSNull && shown.json?["deletedAt"] is NSNull && shown.json?["deviceCount"] as? Int == 1)
        #expect((shown.json?["registeredAt"] as? Int).map { $0 >= before } == true)
        let devices = try #require(shown.json?["devices"] as? [[String: Any]])
        #expect(devices.count == 1 && devices.first?["platform"] as? String == "android", "\(devices)")
        #expect(devices.first?["deviceId"] as? String == active.identity.deviceId)
        #expect(devices.first?["pushToken"] is Bool && (devices.first?["lastActiveAt"] as? Int).map { $0 >= before } == true)
        #expect(shown.json?["lastActiveAt"] as? Int == devices.first?["lastActiveAt"] as? Int)

        let banned = try Phone.online(server)
        #expect(try Admin.call(server, "POST", "/admin/ban", body: #"{"whisperId":"\#(banned.id)","reason":"spam"}"#).status == 200)
        let bannedShown = try Admin.call(server, "GET", "/admin/users/\(banned.id)")
        #expect(bannedShown.json?["status"] as? String == "banned", "\(bannedShown.text)")
        let ban = try #require(bannedShown.json?["ban"] as? [String: Any])
        #expect(ban["reason"] as? String == "spam" && ban["active"] as? Bool == true && ban["until"] is NSNull)
        #expect(bannedShown.json?["deviceCount"] as? Int == 1)

        // Banned before it was ever minted: known to the ban table only.
        let preBanned = Identity.unregisteredID()
        #expect(try Admin.call(server, "POST", "/admin/ban", body: #"{"whisperId":"\#(preBanned)","reason":"x"}"#).status == 200)
        let preShown = try Admin.call(server, "GET", "/admin/users/\(preBanned)")
        #expect(preShown.json?["status"] as? String == "banned" && preShown.json?["registeredAt"] is NSNull, "\(preShown.text)")
        #expect((preShown.json?["devices"] as? [Any])?.isEmpty == true && preShown.json?["deviceCount"] as? Int == 0)

        let deleted = try Phone.online(server)
        #expect(try deleted.deleteAccount().frameType == "account_deleted")
        let deletedShown = try Admin.call(server, "GET", "/admin/users/\(deleted.id)")
        #expect(deletedShown.json?["status"] as? String == "deleted" && deletedShown.json?["deletedAt"] is Int, "\(deletedShown.text)")

        let unknown = try Admin.call(server, "GET", "/admin/users/\(Identity.unregisteredID())")
        #expect(unknown.status == 404 && Admin.code(unknown) == "NOT_FOUND", "\(unknown.text)")
        let valid = Identity.unregisteredID()
        let badChecksum = String(valid.dropLast()) + (valid.hasSuffix("A") ? "B" : "A")
        for bad in ["WSP-NOPE", badChecksum, "x"] {
            let refused = try Admin.call(server, "GET", "/admin/users/\(bad)")
            #expect(refused.status == 400 && Admin.code(refused) == "INVALID_PAYLOAD", "\(bad): \(refused.text)")
        }
    }

    @Test func revoke_closesEverySocketWith4001_withoutABan_auditsIt_andTheUserLogsInAgain() async throws {
        let server = try await Admin.server()
        defer { server.stop() }
        let phone = try Phone.online(server), bystander = try Phone.online(server)

        let reply = try Admin.call(server, "POST", "/admin/users/\(phone.id)/sessions/revoke")
        #expect(reply.status == 200 && reply.json?["revoked"] as? Int == 1, "\(reply.text)")
        try phone.ws.expectRevoked(reason: "admin_logout", closeCode: 4001)
        try bystander.expectQuiet()

        // The old token is dead; there is no ban: a new login works at once and is not revoked.
        let keys = try TestHTTP.get(port: server.publicPort, "/users/\(bystander.id)/keys", headers: ["Authorization: Bearer \(phone.token)"])
        #expect(keys.status == 401)
        let back = try Phone.online(server, phone.identity, whisperId: phone.id)
        try bystander.sendAccepted(to: back.id)
        #expect(try back.ws.receiveJSON().frameType == "message_received")
        #expect(try Admin.call(server, "GET", "/admin/users/\(phone.id)").json?["status"] as? String == "active")

        let audit = Admin.items(try Admin.call(server, "GET", "/admin/audit?limit=200"))
        let row = try #require(audit.first { $0["action"] as? String == "sessions_revoke" })
        #expect(row["target"] as? String == phone.id && row["clientAddress"] as? String == "127.0.0.1", "\(row)")

        // `{}` is a body too; anything else, an unknown or a malformed id is refused, unaudited.
        #expect(try Admin.call(server, "POST", "/admin/users/\(back.id)/sessions/revoke", body: "{}").json?["revoked"] as? Int == 1)
        try back.ws.expectRevoked(reason: "admin_logout", closeCode: 4001)
        let withBody = try Admin.call(server, "POST", "/admin/users/\(phone.id)/sessions/revoke", body: #"{"all":true}"#)
        #expect(withBody.status == 400 && Admin.code(withBody) == "INVALID_PAYLOAD", "\(withBody.text)")
        let unknownId = Identity.unregisteredID()
        let unknown = try Admin.call(server, "POST", "/admin/users/\(unknownId)/sessions/revoke")
        #expect(unknown.status == 404 && Admin.code(unknown) == "NOT_FOUND", "\(unknown.text)")
        let malformed = try Admin.call(server, "POST", "/admin/users/WSP-NOPE/sessions/revoke")
        #expect(malformed.status == 400, "\(malformed.text)")
        let rows = Admin.items(try Admin.call(server, "GET", "/admin/audit?limit=200")).filter { $0["action"] as? String == "sessions_revoke" }
        #expect(rows.count == 2 && !rows.contains { $0["target"] as? String == unknownId }, "\(rows)")
    }
}
