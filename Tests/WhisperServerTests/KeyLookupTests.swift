import Foundation
import Testing
import WhisperTesting

/// `GET /users/{whisperId}/keys` over real HTTP against real PostgreSQL and Redis.
@Suite(.serialized) struct KeyLookupTests {
    static func keys(_ server: TestServer, _ whisperId: String, token: String?) throws -> TestHTTPResponse {
        try TestHTTP.get(port: server.publicPort, "/users/\(whisperId)/keys",
                         headers: token.map { ["Authorization: Bearer \($0)"] } ?? [])
    }

    @Test func registeredIdentity_answersItsKeysAndStatus_toAnyLoggedInUser() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let alice = try Phone.online(server), bob = try Phone.online(server)
        let reply = try Self.keys(server, bob.id, token: alice.token)
        #expect(reply.status == 200)
        #expect(reply.headers.first { $0.key.lowercased() == "content-type" }?.value == "application/json")
        #expect(reply.json as NSDictionary? == [
            "whisperId": bob.id, "encPublicKey": bob.identity.encPublicKeyBase64,
            "signPublicKey": bob.identity.signPublicKeyBase64, "status": "active",
        ] as NSDictionary)
        // One's own keys too.
        #expect(try Self.keys(server, alice.id, token: alice.token).json?["whisperId"] as? String == alice.id)
    }

    @Test func bannedIdentity_isReportedBanned() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let alice = try Phone.online(server), mallory = try Phone.online(server)
        let db = try Identity.database()
        defer { db.shutdown() }
        _ = try await db.query("INSERT INTO bans (whisper_id, reason, created_by) VALUES ($1, 'spam', 'test')",
                               [.text(mallory.id)])
        #expect(try Self.keys(server, mallory.id, token: alice.token).json?["status"] as? String == "banned")
    }

    @Test func badUnknownOrUnauthenticated_getTheirStatusAndCode() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let alice = try Phone.online(server)
        func check(_ reply: TestHTTPResponse, _ status: Int, _ code: String) {
            #expect(reply.status == status, "\(reply.text)")
            #expect((reply.json?["error"] as? [String: Any])?["code"] as? String == code, "\(reply.text)")
        }
        check(try Self.keys(server, Identity.unregisteredID(), token: alice.token), 404, "NOT_FOUND")
        check(try Self.keys(server, "WSP-ABCD-EFGH-IJ55", token: alice.token), 400, "INVALID_PAYLOAD")
        check(try Self.keys(server, "not-an-id", token: alice.token), 400, "INVALID_PAYLOAD")
        check(try Self.keys(server, alice.id, token: nil), 401, "NOT_REGISTERED")
        check(try Self.keys(server, alice.id, token: "not base64!"), 401, "NOT_REGISTERED")
        check(try Self.keys(server, alice.id, token: Data(repeating: 7, count: 32).base64EncodedString()), 401, "NOT_REGISTERED")
        let basic = try TestHTTP.get(port: server.publicPort, "/users/\(alice.id)/keys", headers: ["Authorization: Basic eDp5"])
        check(basic, 401, "NOT_REGISTERED")
        // The admin listener does not serve user routes.
        #expect(try TestHTTP.get(port: server.adminPort, "/users/\(alice.id)/keys",
                                 headers: ["Authorization: Bearer \(alice.token)"]).status == 404)
    }

    @Test func loggedOutOrRefreshedToken_is401AtOnce() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let alice = try Phone.online(server)
        #expect(try Self.keys(server, alice.id, token: alice.token).status == 200)
        let refreshed = try alice.ws.privileged("session_refresh", token: alice.token)
        let newToken = try #require(refreshed.payload["sessionToken"] as? String)
        #expect(try Self.keys(server, alice.id, token: alice.token).status == 401)
        #expect(try Self.keys(server, alice.id, token: newToken).status == 200)
        #expect(try alice.ws.privileged("logout", token: newToken).frameType == "logged_out")
        #expect(try Self.keys(server, alice.id, token: newToken).status == 401)
    }
}
