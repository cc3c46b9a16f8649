import Foundation
import Testing
import WhisperTesting

/// `whisper-server admin …` run as a user would: the built executable as a subprocess
/// against a live server's admin listener (docs/operations.md "Admin CLI").
@Suite(.serialized) struct AdminCommandTests {
    static func admin(_ server: TestServer, _ arguments: [String], token: String = Admin.token) async throws -> Subprocess.Outcome {
        try await Subprocess.capture(try BuiltProducts.whisperServer, ["admin"] + arguments,
                                     environment: ["WHISPER_ADMIN_TOKEN": token, "WHISPER_ADMIN_ADDR": "127.0.0.1:\(server.adminPort)"])
    }

    @Test func subcommands_banListUnbanReviewStatsAndAudit_againstALiveServer() async throws {
        let server = try await Admin.server()
        defer { server.stop() }
        let reporter = try Phone.online(server), reported = try Phone.online(server)
        let target = Identity.unregisteredID()

        let ban = try await Self.admin(server, ["ban", target, "--reason", "spam wave", "--until", "2h"])
        #expect(ban.exitStatus == 0, "\(ban.stderr)")
        #expect(ban.stdout.contains("whisperId") && ban.stdout.contains(target) && ban.stdout.contains("spam wave"), "\(ban.stdout)")
        let bans = try await Self.admin(server, ["bans", "--limit", "200"])
        #expect(bans.exitStatus == 0 && bans.stdout.hasPrefix("WHISPER ID") && bans.stdout.contains(target), "\(bans.stdout)")
        let json = try await Self.admin(server, ["bans", "--json", "--limit", "200"])
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let item = try #require((parsed["items"] as? [[String: Any]])?.first { $0["whisperId"] as? String == target })
        let until = try #require(item["until"] as? Int)
        #expect(abs(until - Int(Date().timeIntervalSince1970 * 1000) - 7_200_000) < 60_000)

        let unban = try await Self.admin(server, ["unban", target])
        #expect(unban.exitStatus == 0, "\(unban.stderr)")

        let report = try Admin.fileReport(server, by: reporter, about: reported.id)
        let reports = try await Self.admin(server, ["reports", "--status", "open", "--limit", "200"])
        #expect(reports.exitStatus == 0 && reports.stdout.contains(reported.id), "\(reports.stdout)")
        let review = try await Self.admin(server, ["review", report, "--action", "ban", "--note", "confirmed"])
        #expect(review.exitStatus == 0, "\(review.stderr)")
        try reported.ws.expectRevoked(reason: "banned", closeCode: 4003)

        let stats = try await Self.admin(server, ["stats"])
        #expect(stats.exitStatus == 0 && stats.stdout.contains("activeBans") && stats.stdout.contains("connections"), "\(stats.stdout)")
        let audit = try await Self.admin(server, ["audit", "--limit", "200"])
        #expect(audit.exitStatus == 0 && audit.stdout.contains("review") && audit.stdout.contains(target), "\(audit.stdout)")
        #expect(audit.stdout.contains("127.0.0.1"))
    }

    @Test func failures_exitNonZero_withTheServersMessage() async throws {
        let server = try await Admin.server()
        defer { server.stop() }
        let wrong = try await Self.admin(server, ["stats"], token: "not-the-token")
        #expect(wrong.exitStatus == 1 && wrong.stderr.contains("AUTH_FAILED: admin token missing or wrong"), "\(wrong.stderr)")
        let none = try await Self.admin(server, ["unban", Identity.unregisteredID()])
        #expect(none.exitStatus == 1 && none.stderr.contains("NOT_FOUND: no ban for this whisperId"), "\(none.stderr)")
        let bad = try await Self.admin(server, ["ban", "WSP-NOPE", "--reason", "x"])
        #expect(bad.exitStatus == 1 && bad.stderr.contains("INVALID_PAYLOAD"), "\(bad.stderr)")
        let unknownReport = try await Self.admin(server, ["review", "999999999999", "--action", "dismiss"])
        #expect(unknownReport.exitStatus == 1 && unknownReport.stderr.contains("NOT_FOUND"), "\(unknownReport.stderr)")
        let badUntil = try await Self.admin(server, ["ban", Identity.unregisteredID(), "--reason", "x", "--until", "soon"])
        #expect(badUntil.exitStatus == 2 && badUntil.stderr.contains("--until"), "\(badUntil.stderr)")
        let noToken = try await Self.admin(server, ["stats"], token: "")
        #expect(noToken.exitStatus == 2 && noToken.stderr.contains("WHISPER_ADMIN_TOKEN"), "\(noToken.stderr)")
    }
}
