import Foundation
import Testing
import WhisperTesting

/// The admin API over real HTTP against real PostgreSQL and Redis: authentication, each
/// route's success and failure paths, paging, reviews and the audit trail.
@Suite(.serialized) struct AdminTests {
    static let routes = [("GET", "/admin/stats", nil), ("GET", "/admin/reports", nil),
                         ("POST", "/admin/reports/1/review", #"{"action":"dismiss"}"#),
                         ("POST", "/admin/ban", #"{"whisperId":"WSP-AAAA-AAAA-AAAA","reason":"x"}"#),
                         ("POST", "/admin/unban", #"{"whisperId":"WSP-AAAA-AAAA-AAAA"}"#),
                         ("GET", "/admin/bans", nil), ("GET", "/admin/audit", nil),
                         ("GET", "/admin/log-level", nil), ("PUT", "/admin/log-level", #"{"level":"debug"}"#)]

    @Test func adminRoutes_answer503_whenNoTokenIsConfigured() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        for (method, path, body) in Self.routes {
            let reply = try Admin.call(server.adminPort, method, path, body: body)
            #expect(reply.status == 503 && Admin.code(reply) == "ADMIN_DISABLED", "\(path): \(reply.text)")
        }
        #expect(try TestHTTP.get(port: server.adminPort, "/metrics").status == 200)
    }

    @Test func adminRoutes_answer401_whenTheTokenIsMissingWrongOrOfAnotherScheme() async throws {
        let server = try await Admin.server()
        defer { server.stop() }
        let wrong: [String?] = [nil, "wrong", String(Admin.token.dropLast()), Admin.token + "x", Admin.token.uppercased(), ""]
        for (method, path, body) in Self.routes {
            for token in wrong {
                let reply = try Admin.call(server.adminPort, method, path, body: body, token: token)
                #expect(reply.status == 401 && Admin.code(reply) == "AUTH_FAILED", "\(path) \(token ?? "none"): \(reply.text)")
            }
        }
        let basic = try TestHTTP.get(port: server.adminPort, "/admin/stats", headers: ["Authorization: Basic \(Admin.token)"])
        #expect(basic.status == 401)
        #expect(try Admin.call(server, "GET", "/admin/stats").status == 200)
        // Not a single admin route is served on the public listener, even with the token.
        // (Bodiless: no route there takes a body, so one with a body is refused as too large first.)
        for (method, path, _) in Self.routes {
            let reply = try Admin.call(server.publicPort, method, path)
            #expect(reply.status == 404 && Admin.code(reply) == "NOT_FOUND", "\(path): \(reply.text)")
        }
    }

    @Test func stats_countUsersReportsBans_andThisNodesSockets() async throws {
        let server = try await Admin.server()
        defer { server.stop() }
        let reporter = try Phone.online(server), reported = try Phone.online(server)
        _ = try Admin.fileReport(server, by: reporter, about: reported.id)
        #expect(try Admin.call(server, "POST", "/admin/ban", body: #"{"whisperId":"\#(Identity.unregisteredID())","reason":"r"}"#).status == 200)
        let stats = try Admin.call(server, "GET", "/admin/stats")
        #expect(stats.status == 200, "\(stats.text)")
        let json = try #require(stats.json)
        #expect((json["users"] as? Int ?? 0) >= 2 && (json["openReports"] as? Int ?? 0) >= 1 && (json["activeBans"] as? Int ?? 0) >= 1)
        #expect(json["connections"] as? Int == 2 && json["authenticatedConnections"] as? Int == 2, "\(json)")
        #expect(json["pendingMessages"] is Int && json["node"] is String)
        #expect(abs((json["serverTime"] as? Int ?? 0) - Int(Date().timeIntervalSince1970 * 1000)) < 60_000)
    }

    @Test func reports_pageOldestFirstWithTheCursor_andRejectABadQuery() async throws {
        let server = try await Admin.server()
        defer { server.stop() }
        let reporter = try Phone.online(server), reported = try Phone.online(server)
        var filed: [String] = []
        for reason in ["spam", "abuse", "impersonation", "other", "spam"] {
            filed.append(try Admin.fileReport(server, by: reporter, about: reported.id, reason: reason))
        }
        let (items, pages) = try Admin.allPages(server, "/admin/reports?status=open", limit: 2)
        #expect(pages.allSatisfy { $0 <= 2 } && pages.count >= 3, "\(pages)")
        let ids = items.compactMap { $0["id"] as? String }
        #expect(ids.compactMap { Int64($0) } == ids.compactMap { Int64($0) }.sorted() && Set(ids).count == ids.count)
        let mine = items.filter { $0["reporterId"] as? String == reporter.id }
        #expect(mine.compactMap { $0["id"] as? String } == filed)
        let first = try #require(mine.first)
        #expect(first["whisperId"] as? String == reported.id && first["reason"] as? String == "spam")
        #expect(first["details"] as? String == "test" && first["messageId"] is NSNull && first["verified"] as? Bool == false)
        #expect(first["status"] as? String == "open" && first["reviewedAt"] is NSNull && first["action"] is NSNull)
        #expect(abs((first["createdAt"] as? Int ?? 0) - Int(Date().timeIntervalSince1970 * 1000)) < 60_000)
        // Reviewed reports are another list; the default is `open`.
        let reviewed = try Admin.call(server, "GET", "/admin/reports?status=reviewed&limit=200")
        #expect(reviewed.status == 200 && !Admin.items(reviewed).contains { filed.contains($0["id"] as? String ?? "") })
        #expect(try Admin.call(server, "GET", "/admin/reports").status == 200)
        for query in ["status=closed", "cursor=abc", "cursor=-1", "cursor=1234567890123456789", "limit=0", "limit=201",
                      "limit=x", "page=2", "status=open&status=open", "cursor=%zz"] {
            let reply = try Admin.call(server, "GET", "/admin/reports?" + query)
            #expect(reply.status == 400 && Admin.code(reply) == "INVALID_PAYLOAD", "\(query): \(reply.text)")
        }
    }

    @Test func review_dismissesOnce_isIdempotentAfterwards_andRefusesUnknownOrBadInput() async throws {
        let server = try await Admin.server()
        defer { server.stop() }
        let reporter = try Phone.online(server), reported = try Phone.online(server)
        let id = try Admin.fileReport(server, by: reporter, about: reported.id)
        let dismissed = try Admin.call(server, "POST", "/admin/reports/\(id)/review", body: #"{"action":"dismiss","note":"fine"}"#)
        #expect(dismissed.status == 200, "\(dismissed.text)")
        let report = try #require(dismissed.json?["report"] as? [String: Any])
        #expect(dismissed.json?["changed"] as? Bool == true)
        #expect(report["id"] as? String == id && report["status"] as? String == "reviewed" && report["action"] as? String == "dismiss")
        #expect(report["note"] as? String == "fine" && report["reviewedAt"] is Int)
        // A second review changes nothing, not even a different action: the identity stays unbanned.
        let again = try Admin.call(server, "POST", "/admin/reports/\(id)/review", body: #"{"action":"ban"}"#)
        #expect(again.status == 200 && again.json?["changed"] as? Bool == false)
        #expect((again.json?["report"] as? [String: Any])?["action"] as? String == "dismiss")
        try reported.expectQuiet()
        let listed = try Admin.call(server, "GET", "/admin/reports?status=reviewed&limit=200")
        #expect(Admin.items(listed).contains { $0["id"] as? String == id })

        let unknown = try Admin.call(server, "POST", "/admin/reports/999999999999/review", body: #"{"action":"dismiss"}"#)
        #expect(unknown.status == 404 && Admin.code(unknown) == "NOT_FOUND")
        for (path, body) in [("/admin/reports/abc/review", #"{"action":"dismiss"}"#), ("/admin/reports/\(id)/review", #"{"action":"delete"}"#),
                             ("/admin/reports/\(id)/review", #"{"action":"dismiss","extra":1}"#), ("/admin/reports/\(id)/review", "{}"),
                             ("/admin/reports/\(id)/review", "not json"),
                             ("/admin/reports/\(id)/review", #"{"action":"dismiss","note":"\#(String(repeating: "n", count: 2_001))"}"#)] {
            let reply = try Admin.call(server, "POST", path, body: body)
            #expect(reply.status == 400 && Admin.code(reply) == "INVALID_PAYLOAD", "\(path) \(body.prefix(40)): \(reply.text)")
        }
    }

    @Test func review_ban_bansTheReportedIdentity_andClosesItsSocket() async throws {
        let server = try await Admin.server()
        defer { server.stop() }
        let reporter = try Phone.online(server), reported = try Phone.online(server)
        let id = try Admin.fileReport(server, by: reporter, about: reported.id)
        let reply = try Admin.call(server, "POST", "/admin/reports/\(id)/review", body: #"{"action":"ban"}"#)
        #expect(reply.status == 200 && reply.json?["changed"] as? Bool == true, "\(reply.text)")
        try reported.ws.expectRevoked(reason: "banned", closeCode: 4003)
        let bans = Admin.items(try Admin.call(server, "GET", "/admin/bans?limit=200"))
        let ban = try #require(bans.first { $0["whisperId"] as? String == reported.id })
        #expect(ban["reason"] as? String == "report \(id)" && ban["until"] is NSNull && ban["active"] as? Bool == true)
        let ws = try TestWebSocket(port: server.publicPort)
        #expect(try ws.registerReply(reported.identity, whisperId: reported.id).errorCode == "USER_BANNED")
        try reporter.expectQuiet()
    }

    @Test func ban_andUnban_refuseBadBodies_andUnbanOfNoBanIs404() async throws {
        let server = try await Admin.server()
        defer { server.stop() }
        let valid = Identity.unregisteredID()
        let past = Int(Date().timeIntervalSince1970 * 1000) - 1_000
        for body in [#"{"whisperId":"\#(Identity.withBadChecksum(valid))","reason":"x"}"#, #"{"whisperId":"\#(valid)"}"#,
                     #"{"whisperId":"\#(valid)","reason":""}"#, #"{"whisperId":"\#(valid)","reason":"x","until":\#(past)}"#,
                     #"{"whisperId":"\#(valid)","reason":"x","until":"tomorrow"}"#, #"{"whisperId":"\#(valid)","reason":"x","until":-5}"#,
                     #"{"whisperId":"\#(valid)","reason":"x","extra":true}"#, #"{"whisperId":"\#(valid)","reason":"a\u0000b"}"#,
                     #"{"whisperId":"\#(valid)","reason":"\#(String(repeating: "r", count: 501))"}"#, "[]", "{"] {
            let reply = try Admin.call(server, "POST", "/admin/ban", body: body)
            #expect(reply.status == 400 && Admin.code(reply) == "INVALID_PAYLOAD", "\(body.prefix(60)): \(reply.text)")
        }
        for body in [#"{"whisperId":"\#(Identity.withBadChecksum(valid))"}"#, #"{}"#, #"{"whisperId":"\#(valid)","reason":"x"}"#] {
            let reply = try Admin.call(server, "POST", "/admin/unban", body: body)
            #expect(reply.status == 400 && Admin.code(reply) == "INVALID_PAYLOAD", "\(body): \(reply.text)")
        }
        let none = try Admin.call(server, "POST", "/admin/unban", body: #"{"whisperId":"\#(valid)"}"#)
        #expect(none.status == 404 && Admin.code(none) == "NOT_FOUND")
        // Nothing refused was stored or audited.
        #expect(!Admin.items(try Admin.call(server, "GET", "/admin/bans?limit=200")).contains { $0["whisperId"] as? String == valid })
        #expect(!Admin.items(try Admin.call(server, "GET", "/admin/audit?limit=200")).contains { $0["target"] as? String == valid })
    }

    @Test func bans_pageByWhisperId_andShowExpiredOnesInactive() async throws {
        let server = try await Admin.server()
        defer { server.stop() }
        let ids = (0..<3).map { _ in Identity.unregisteredID() }
        let until = Int(Date().timeIntervalSince1970 * 1000) + 3_600_000
        for (index, id) in ids.enumerated() {
            let body = index == 0 ? #"{"whisperId":"\#(id)","reason":"r\#(index)","until":\#(until)}"# : #"{"whisperId":"\#(id)","reason":"r\#(index)"}"#
            let reply = try Admin.call(server, "POST", "/admin/ban", body: body)
            #expect(reply.status == 200 && reply.json?["revokedSessions"] as? Int == 0, "\(reply.text)")
        }
        let db = try Identity.database()
        defer { db.shutdown() }
        _ = try await db.query("UPDATE bans SET until = now() - interval '1 minute' WHERE whisper_id = $1", [.text(ids[2])])
        let (items, pages) = try Admin.allPages(server, "/admin/bans", limit: 1)
        #expect(pages.allSatisfy { $0 <= 1 })
        let listed = items.compactMap { $0["whisperId"] as? String }
        #expect(listed == listed.sorted() && Set(listed).count == listed.count)
        let mine = items.filter { ids.contains($0["whisperId"] as? String ?? "") }
        #expect(mine.count == 3)
        let timed = try #require(mine.first { $0["whisperId"] as? String == ids[0] })
        #expect(abs((timed["until"] as? Int ?? 0) - until) <= 1 && timed["active"] as? Bool == true && timed["reason"] as? String == "r0")
        let expired = try #require(mine.first { $0["whisperId"] as? String == ids[2] })
        #expect(expired["active"] as? Bool == false)
        for query in ["cursor=WSP-1", "cursor=\(Identity.withBadChecksum(ids[0]))", "status=open"] {
            #expect(try Admin.call(server, "GET", "/admin/bans?" + query).status == 400, "\(query)")
        }
    }

    @Test func everyChange_writesAnAuditRow_withTheClientAddress_newestFirst() async throws {
        let server = try await Admin.server()
        defer { server.stop() }
        let reporter = try Phone.online(server), reported = try Phone.online(server)
        let target = Identity.unregisteredID()
        let until = Int(Date().timeIntervalSince1970 * 1000) + 60_000
        #expect(try Admin.call(server, "POST", "/admin/ban", body: #"{"whisperId":"\#(target)","reason":"spam run","until":\#(until)}"#).status == 200)
        #expect(try Admin.call(server, "POST", "/admin/unban", body: #"{"whisperId":"\#(target)"}"#).status == 200)
        let report = try Admin.fileReport(server, by: reporter, about: reported.id)
        #expect(try Admin.call(server, "POST", "/admin/reports/\(report)/review", body: #"{"action":"dismiss","note":"ok"}"#).status == 200)

        let (items, _) = try Admin.allPages(server, "/admin/audit", limit: 2)
        let ids = items.compactMap { ($0["id"] as? String).flatMap { Int64($0) } }
        #expect(ids == ids.sorted(by: >))
        let mine = items.filter { [target, report].contains($0["target"] as? String ?? "") }
        #expect(mine.compactMap { $0["action"] as? String } == ["review", "unban", "ban"], "\(mine)")
        for event in mine {
            #expect(event["clientAddress"] as? String == "127.0.0.1" && event["actor"] as? String == "admin")
            #expect(abs((event["createdAt"] as? Int ?? 0) - Int(Date().timeIntervalSince1970 * 1000)) < 60_000)
        }
        let ban = try #require(mine.last?["details"] as? [String: Any])
        #expect(ban["reason"] as? String == "spam run" && ban["until"] as? Int == until)
        let review = try #require(mine.first?["details"] as? [String: Any])
        #expect(review["action"] as? String == "dismiss" && review["note"] as? String == "ok")
        // The row itself, as operators with database access see it.
        let db = try Identity.database()
        defer { db.shutdown() }
        let rows = try await db.query("SELECT action, client_address FROM audit_events WHERE target = $1 ORDER BY id", [.text(target)])
        #expect(rows.map { $0.string("action") } == ["ban", "unban"] && rows.allSatisfy { $0.string("client_address") == "127.0.0.1" })
    }
}
