import Foundation
import Testing
import WhisperOps
import WhisperTesting

/// `GET`/`PUT /admin/log-level` and `whisper-server admin log-level` (docs/operations.md "Logs"):
/// an operator turns debug on for one incident without a restart, and the change is audited.
@Suite(.serialized) struct AdminLogLevelTests {
    @Test func put_changesThisNodesLevelAtOnce_auditsIt_andRefusesNonsense() async throws {
        let sink = MemoryLogSink()
        let server = try await TestServer(Admin.environment(["WHISPER_LOG_LEVEL": "info"]), logSink: sink)
        defer { server.stop() }
        #expect(try Admin.call(server, "GET", "/admin/log-level").json?["level"] as? String == "info")

        let node = try #require(try Admin.call(server, "GET", "/admin/stats").json?["node"] as? String)
        // At info, an accepted message writes no debug line; at debug, the next one does.
        let alice = try Phone.online(server), bob = try Phone.online(server)
        try alice.sendAccepted(to: bob.id)
        #expect(!sink.lines.contains { $0.contains(#""level":"debug""#) })
        let changed = try Admin.call(server, "PUT", "/admin/log-level", body: #"{"level":"debug"}"#)
        #expect(changed.status == 200, "\(changed.text)")
        #expect(changed.json?["level"] as? String == "debug" && changed.json?["previous"] as? String == "info")
        #expect(changed.json?["node"] as? String == node)
        try alice.sendAccepted(to: bob.id)
        #expect(sink.lines.contains { $0.contains(#""event":"message_accepted""#) }, "no debug line after the change")
        #expect(sink.lines.contains { $0.contains("log_level_changed") })

        let audit = Admin.items(try Admin.call(server, "GET", "/admin/audit?limit=200"))
        let row = try #require(audit.first { $0["action"] as? String == "log_level" })
        #expect(row["target"] as? String == node)
        #expect((row["details"] as? [String: Any])?["to"] as? String == "debug", "\(row)")

        for body in [#"{"level":"verbose"}"#, #"{"level":"debug","extra":1}"#, #"{}"#, "not json"] {
            let refused = try Admin.call(server, "PUT", "/admin/log-level", body: body)
            #expect(refused.status == 400 && Admin.code(refused) == "INVALID_PAYLOAD", "\(body): \(refused.text)")
        }
        #expect(try Admin.call(server, "GET", "/admin/log-level").json?["level"] as? String == "debug")
    }

    @Test func cli_printsAndSetsTheLevel() async throws {
        let server = try await Admin.server(["WHISPER_LOG_LEVEL": "warn"])
        defer { server.stop() }
        let shown = try await AdminCommandTests.admin(server, ["log-level"])
        #expect(shown.exitStatus == 0 && shown.stdout.contains("warn"), "\(shown.stdout) \(shown.stderr)")
        let set = try await AdminCommandTests.admin(server, ["log-level", "error"])
        #expect(set.exitStatus == 0 && set.stdout.contains("error") && set.stdout.contains("warn"), "\(set.stdout) \(set.stderr)")
        #expect(server.log.level == .error)
        let refused = try await AdminCommandTests.admin(server, ["log-level", "loud"])
        #expect(refused.exitStatus != 0 && server.log.level == .error, "\(refused.stdout)")
    }
}
