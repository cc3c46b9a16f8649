import Foundation
import Testing
import WhisperTesting

/// `POST /reports` over real HTTP against real PostgreSQL and Redis.
@Suite(.serialized) struct ReportTests {
    static func report(_ server: TestServer, token: String?, _ body: String) throws -> TestHTTPResponse {
        var head = "POST /reports HTTP/1.1\r\nHost: t\r\nConnection: close\r\nContent-Type: application/json\r\n"
        if let token { head += "Authorization: Bearer \(token)\r\n" }
        return try TestHTTP.request(port: server.publicPort, head + "Content-Length: \(body.utf8.count)\r\n\r\n" + body)
    }

    static func row(_ id: String) async throws -> (String?, String?, String?, String?, Bool?) {
        let db = try Identity.database()
        defer { db.shutdown() }
        let rows = try await db.query("SELECT reporter_id, whisper_id, reason, status, verified FROM reports WHERE id = $1::bigint",
                                      [.text(id)])
        let row = rows.first
        return (row?.string("reporter_id"), row?.string("whisper_id"), row?.string("reason"), row?.string("status"),
                row?.bool("verified"))
    }

    @Test func report_isStoredOpen_andVerifiedOnlyForAMessageTheReportedUserReallySentTheReporter() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let reporter = try Phone.online(server), spammer = try Phone.online(server), other = try Phone.online(server)
        let sent = try spammer.sendAccepted(to: reporter.id)
        let toOther = try spammer.sendAccepted(to: other.id)

        let plain = try Self.report(server, token: reporter.token, #"{"whisperId":"\#(spammer.id)","reason":"spam","details":"ads"}"#)
        #expect(plain.status == 201, "\(plain.text)")
        let plainId = try #require(plain.json?["id"] as? String)
        #expect(plain.json?["verified"] as? Bool == false)
        let stored = try await Self.row(plainId)
        #expect(stored.0 == reporter.id && stored.1 == spammer.id && stored.2 == "spam" && stored.3 == "open")

        let real = try Self.report(server, token: reporter.token,
                                   #"{"whisperId":"\#(spammer.id)","reason":"abuse","messageId":"\#(sent.messageId.uppercased())"}"#)
        #expect(real.status == 201)
        #expect(real.json?["verified"] as? Bool == true)
        #expect(try await Self.row(try #require(real.json?["id"] as? String)).4 == true)
        // A message the spammer sent to someone else, or one that never existed: not verified.
        for messageId in [toOther.messageId, UUID().uuidString] {
            let claimed = try Self.report(server, token: reporter.token,
                                          #"{"whisperId":"\#(spammer.id)","reason":"abuse","messageId":"\#(messageId)"}"#)
            #expect(claimed.status == 201)
            #expect(claimed.json?["verified"] as? Bool == false)
        }
    }

    @Test func badUnknownUnauthenticatedOrFlooding_getTheirStatus() async throws {
        let server = try await TestServer(["WHISPER_RATE_REPORT": "3/3600"])
        defer { server.stop() }
        let reporter = try Phone.online(server)
        func code(_ reply: TestHTTPResponse) -> String? { (reply.json?["error"] as? [String: Any])?["code"] as? String }
        for body in [#"{"whisperId":"\#(reporter.id)","reason":"rude"}"#, #"{"reason":"spam"}"#,
                     #"{"whisperId":"WSP-ABCD-EFGH-IJ55","reason":"spam"}"#,
                     #"{"whisperId":"\#(reporter.id)","reason":"spam","extra":1}"#,
                     #"{"whisperId":"\#(reporter.id)","reason":"spam","details":"\#(String(repeating: "x", count: 2_001))"}"#,
                     "[]"] {
            let reply = try Self.report(server, token: reporter.token, body)
            #expect(reply.status == 400 && code(reply) == "INVALID_PAYLOAD", "\(body.prefix(60)): \(reply.text)")
        }
        #expect(try Self.report(server, token: nil, #"{"whisperId":"\#(reporter.id)","reason":"spam"}"#).status == 401)
        let unknown = try Self.report(server, token: reporter.token, #"{"whisperId":"\#(Identity.unregisteredID())","reason":"spam"}"#)
        #expect(unknown.status == 404 && code(unknown) == "NOT_FOUND")
        // Reporting oneself is refused, and still counts: unknown, self and one more reach the 3/h limit.
        let me = try Self.report(server, token: reporter.token, #"{"whisperId":"\#(reporter.id)","reason":"other"}"#)
        #expect(me.status == 400)
        let third = try Self.report(server, token: reporter.token, #"{"whisperId":"\#(Identity.unregisteredID())","reason":"spam"}"#)
        #expect(third.status == 404)
        let limited = try Self.report(server, token: reporter.token, #"{"whisperId":"\#(Identity.unregisteredID())","reason":"spam"}"#)
        #expect(limited.status == 429 && code(limited) == "RATE_LIMITED")
    }
}
