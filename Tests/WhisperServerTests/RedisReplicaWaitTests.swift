import Foundation
import Glibc
import Testing
import WhisperTesting

/// `WHISPER_REDIS_MIN_REPLICAS` on scripts/test's primary + replica pair: `message_accepted` only
/// once the replica confirmed the accept (`WAIT`); short of it, `INTERNAL_ERROR`, and the retry of
/// the same envelope is acknowledged without a second delivery. Serialized: one test pauses the
/// replica the other relies on.
@Suite(.serialized) struct RedisReplicaWaitTests {
    private static let waitMillis = 2_000

    private static func server() async throws -> TestServer {
        try await TestServer([
            "WHISPER_REDIS_URL": try TestEnvironment.redisReplicatedURL,
            "WHISPER_REDIS_MIN_REPLICAS": "1",
            "WHISPER_REDIS_WAIT_TIMEOUT_MS": String(waitMillis),
        ])
    }

    @Test func withTheReplicaUp_aSendIsAcceptedAndDelivered() async throws {
        let server = try await Self.server()
        defer { server.stop() }
        #expect(server.config.redis.minReplicas == 1)
        let alice = try Phone.online(server), bob = try Phone.online(server)
        let message = TestMessage(from: alice.id, to: bob.id)
        let started = Date()
        let ack = try alice.send(message)
        #expect(ack.frameType == "message_accepted", "\(ack)")
        #expect(Date().timeIntervalSince(started) < Double(Self.waitMillis) / 1000, "WAIT ran into its timeout")
        let received = try bob.ws.receiveJSON()
        #expect(received.frameType == "message_received")
        #expect(try Identity.metricValue(server, "whisper_redis_wait_shortfall_total") == 0)
    }

    @Test func withTheReplicaPaused_theSenderGetsAnErrorAndItsRetryIsAcceptedOnce() async throws {
        let server = try await Self.server()
        defer { server.stop() }
        let alice = try Phone.online(server), bob = try Phone.online(server)
        let text = try String(contentsOfFile: try TestEnvironment.redisReplicaPIDFile, encoding: .utf8)
        let replica = try #require(pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)))
        let message = TestMessage(from: alice.id, to: bob.id)

        try #require(kill(replica, SIGSTOP) == 0)
        var paused = true
        defer { if paused { kill(replica, SIGCONT) } }
        let started = Date()
        let refused = try alice.send(message)
        let waited = Date().timeIntervalSince(started)
        #expect(refused.errorCode == "INTERNAL_ERROR", "\(refused)")
        #expect(waited >= Double(Self.waitMillis) / 1000 * 0.9 && waited < Double(Self.waitMillis) / 1000 + 4, "answered after \(waited) s")
        #expect(try Identity.metricValue(server, "whisper_redis_wait_shortfall_total") == 1)
        // The primary has it: it is routed as usual.
        #expect(try bob.ws.receiveJSON().frameType == "message_received")

        kill(replica, SIGCONT)
        paused = false
        let ack = try alice.send(message)
        #expect(ack.frameType == "message_accepted", "\(ack)")
        // Delivered exactly once: no second live frame, one pending entry.
        try bob.expectQuiet()
        #expect(try bob.fetchAll().messages.count == 1)
        #expect(try Identity.metricValue(server, "whisper_redis_wait_shortfall_total") == 1)
    }
}
