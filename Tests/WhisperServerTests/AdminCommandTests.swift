import Foundation
import Testing
import WhisperTesting

/// `whisper-server admin …` run as a user would: the built executable as a subprocess
/// against a live server's admin listener (docs/operations.md "Admin CLI").
@Suite(.serialized) struct AdminCommandTests {
    static func admin(_ server: TestServer, _ arguments: [String], token: String = Admin.token) async throws -> Subprocess.Outcome {
        try await admin(arguments, environment: ["WHISPER_ADMIN_TOKEN": token, "WHISPER_ADMIN_ADDR": "127.0.0.1:\(server.adminPort)"])
    }

    static func admin(_ arguments: [String], environment: [String: String]) async throws -> Subprocess.Outcome {
        try await Subprocess.capture(try BuiltProducts.whisperServer, ["admin"] + arguments, environment: environment)
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

    @Test func exitStatus_usage2_unreachable69_refused1_andVersion0() async throws {
        let environment = ["WHISPER_ADMIN_TOKEN": Admin.token]
        for usage in [["bans", "--limit", "many"], ["no-such-command"], ["user"], ["sessions", "revoke"],
                      ["stats", "--url", "ftp://127.0.0.1:1"]] {
            let outcome = try await Self.admin(usage, environment: environment)
            #expect(outcome.exitStatus == 2, "\(usage): \(outcome.exitStatus.map(String.init) ?? "signal") \(outcome.stderr)")
        }
        for unreachable in ["http://127.0.0.1:1", "http://no-such-host.invalid:9090"] {
            let outcome = try await Self.admin(["stats", "--url", unreachable], environment: environment)
            #expect(outcome.exitStatus == 69 && outcome.stderr.contains("unreachable"), "\(unreachable): \(outcome.stderr)")
            #expect(!outcome.stderr.contains(Admin.token))
        }
        let version = try await Self.admin(["--version"], environment: [:])
        #expect(version.exitStatus == 0 && version.stdout.hasPrefix("whisper-server "), "\(version.stdout)")

        let server = try await Admin.server()
        defer { server.stop() }
        let refused = try await Self.admin(server, ["user", Identity.unregisteredID()])
        #expect(refused.exitStatus == 1 && refused.stderr.contains("NOT_FOUND: unknown whisperId (HTTP 404)"), "\(refused.stderr)")
        // Without an S3 store the GC route answers 503: the command reached it.
        let gc = try await Self.admin(server, ["gc", "run"])
        #expect(gc.exitStatus == 1 && gc.stderr.contains("ATTACHMENTS_DISABLED"), "\(gc.stderr)")
    }

    @Test func user_andSessionsRevoke_againstALiveServer() async throws {
        let server = try await Admin.server()
        defer { server.stop() }
        let phone = try Phone.online(server, TestIdentity(platform: "android"))
        let shown = try await Self.admin(server, ["user", phone.id])
        #expect(shown.exitStatus == 0, "\(shown.stderr)")
        #expect(shown.stdout.contains("status") && shown.stdout.contains("active") && shown.stdout.contains("PLATFORM")
                && shown.stdout.contains("android") && shown.stdout.contains(phone.identity.deviceId), "\(shown.stdout)")

        let revoked = try await Self.admin(server, ["sessions", "revoke", phone.id])
        #expect(revoked.exitStatus == 0 && revoked.stdout.contains("revoked  1"), "\(revoked.stdout) \(revoked.stderr)")
        try phone.ws.expectRevoked(reason: "admin_logout", closeCode: 4001)
        let back = try Phone.online(server, phone.identity, whisperId: phone.id)
        #expect(back.id == phone.id)

        _ = try await Self.admin(server, ["ban", phone.id, "--reason", "spam wave"])
        let banned = try await Self.admin(server, ["user", phone.id, "--json"])
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(banned.stdout.utf8)) as? [String: Any])
        #expect(parsed["status"] as? String == "banned" && (parsed["ban"] as? [String: Any])?["reason"] as? String == "spam wave")
    }

    /// The CLI against a TLS admin listener reached by name, verified with a CA file: the
    /// right CA passes; another CA, or the address the certificate does not name, is refused.
    @Test func tls_reachesTheAdminListenerByName_withTheCAFile_andRefusesAnyOtherTrust() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("whisper-admin-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
        let openssl = "/usr/bin/openssl"
        for ca in ["ca", "other-ca"] {
            try await Subprocess.run(openssl, ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", path("\(ca).key"),
                                               "-out", path("\(ca).pem"), "-days", "1", "-subj", "/CN=Whisper test \(ca)"])
        }
        try "subjectAltName=DNS:localhost\n".write(toFile: path("leaf.ext"), atomically: true, encoding: .utf8)
        try await Subprocess.run(openssl, ["req", "-newkey", "rsa:2048", "-nodes", "-keyout", path("leaf.key"), "-out", path("leaf.csr"),
                                           "-subj", "/CN=localhost"])
        try await Subprocess.run(openssl, ["x509", "-req", "-in", path("leaf.csr"), "-CA", path("ca.pem"), "-CAkey", path("ca.key"),
                                           "-CAcreateserial", "-out", path("leaf.pem"), "-days", "1", "-extfile", path("leaf.ext")])
        let server = try await Admin.server(["WHISPER_TLS_CERT": path("leaf.pem"), "WHISPER_TLS_KEY": path("leaf.key")])
        defer { server.stop() }
        let environment = ["WHISPER_ADMIN_TOKEN": Admin.token]

        let byName = try await Self.admin(["stats", "--url", "https://localhost:\(server.adminPort)", "--ca-file", path("ca.pem")],
                                          environment: environment)
        #expect(byName.exitStatus == 0 && byName.stdout.contains("connections"), "\(byName.stdout) \(byName.stderr)")
        let fromEnvironment = try await Self.admin(["user", Identity.unregisteredID(), "--admin-url", "https://localhost:\(server.adminPort)"],
                                                   environment: environment.merging(["WHISPER_ADMIN_CA_FILE": path("ca.pem")]) { $1 })
        #expect(fromEnvironment.exitStatus == 1 && fromEnvironment.stderr.contains("NOT_FOUND"), "\(fromEnvironment.stderr)")
        // The server's own environment: WHISPER_TLS_CERT set means its listeners speak TLS.
        let serverEnvironment = try await Self.admin(["stats"], environment: environment.merging(
            ["WHISPER_ADMIN_ADDR": "localhost:\(server.adminPort)", "WHISPER_TLS_CERT": path("leaf.pem"),
             "WHISPER_ADMIN_CA_FILE": path("ca.pem")]) { $1 })
        #expect(serverEnvironment.exitStatus == 0, "\(serverEnvironment.stderr)")

        let otherCA = try await Self.admin(["stats", "--url", "https://localhost:\(server.adminPort)", "--ca-file", path("other-ca.pem")],
                                           environment: environment)
        #expect(otherCA.exitStatus == 69 && otherCA.stderr.contains("certificate"), "\(otherCA.stderr)")
        let systemCAs = try await Self.admin(["stats", "--url", "https://localhost:\(server.adminPort)"], environment: environment)
        #expect(systemCAs.exitStatus == 69, "\(systemCAs.stderr)")
        let wrongName = try await Self.admin(["stats", "--url", "https://127.0.0.1:\(server.adminPort)", "--ca-file", path("ca.pem")],
                                             environment: environment)
        #expect(wrongName.exitStatus == 69, "\(wrongName.stderr)")
        let plain = try await Self.admin(["stats", "--url", "http://localhost:\(server.adminPort)"], environment: environment)
        #expect(plain.exitStatus != 0, "\(plain.stdout)")
        for outcome in [byName, otherCA, systemCAs, wrongName, plain] { #expect(!(outcome.stdout + outcome.stderr).contains(Admin.token)) }
    }
}
