import Foundation
import Testing
import WhisperProtocol
import WhisperTesting

/// `register_begin` rate limits (docs/operations.md "Rate limits"; docs/operations.md "Configuration"), shared through Redis.
@Suite(.serialized) struct RateLimitTests {
    @Test func perIP_limit_refusesTheHitPastTheCount_withRetryAfter_andCountsIt() async throws {
        let server = try await TestServer(["WHISPER_RATE_REGISTER_IP": "3/60"])
        defer { server.stop() }
        let ws = try TestWebSocket(port: server.publicPort)
        // Invalid frames are rejected before the limiter and do not count.
        var invalid = TestWebSocket.beginFrame(TestIdentity())
        invalid["payload"] = ["protocolVersion": 1, "cryptoVersion": 1, "platform": "ios"]
        #expect(try ws.request(invalid).errorCode == "INVALID_PAYLOAD")
        for _ in 0..<3 { #expect(try ws.registerBegin(TestIdentity()).frameType == "register_challenge") }
        let refused = try ws.registerBegin(TestIdentity())
        #expect(refused.errorCode == "RATE_LIMITED", "\(refused)")
        #expect(refused["requestId"] as? String == "begin")
        let retryAfter = refused.payload["retryAfterMs"] as? Int64 ?? -1
        #expect(retryAfter > 55_000 && retryAfter <= 60_000, "\(retryAfter)")
        #expect(try Identity.metricValue(server, #"whisper_rate_limited_total{action="register"}"#) == 1)
        // Another socket from the same address is the same IP.
        #expect(try TestWebSocket(port: server.publicPort).registerBegin(TestIdentity()).errorCode == "RATE_LIMITED")
    }

    @Test func perWhisperID_limit_countsOnlyBeginsNamingThatID() async throws {
        let server = try await TestServer(["WHISPER_RATE_REGISTER": "2/60", "WHISPER_RATE_REGISTER_IP": "100/60"])
        defer { server.stop() }
        let ws = try TestWebSocket(port: server.publicPort)
        let target = Identity.unregisteredID()
        for _ in 0..<2 { #expect(try ws.registerBegin(TestIdentity(), whisperId: target).frameType == "register_challenge") }
        #expect(try ws.registerBegin(TestIdentity(), whisperId: target).errorCode == "RATE_LIMITED")
        #expect(try ws.registerBegin(TestIdentity(), whisperId: Identity.unregisteredID()).frameType == "register_challenge")
        #expect(try ws.registerBegin(TestIdentity()).frameType == "register_challenge")
    }

    @Test func proofsDoNotCount_oneLoginIsOneHit() async throws {
        let server = try await TestServer(["WHISPER_RATE_REGISTER_IP": "3/60"])
        defer { server.stop() }
        let ws = try TestWebSocket(port: server.publicPort)
        for _ in 0..<3 { _ = try ws.login(TestIdentity()) }
        #expect(try ws.registerBegin(TestIdentity()).errorCode == "RATE_LIMITED")
    }

    @Test func window_slides_andARefusedHitIsNotCharged() async throws {
        let server = try await TestServer(["WHISPER_RATE_REGISTER_IP": "2/2"])
        defer { server.stop() }
        let ws = try TestWebSocket(port: server.publicPort)
        for _ in 0..<2 { #expect(try ws.registerBegin(TestIdentity()).frameType == "register_challenge") }
        let refused = try ws.registerBegin(TestIdentity())
        let retryAfter = refused.payload["retryAfterMs"] as? Int64 ?? -1
        #expect(refused.errorCode == "RATE_LIMITED" && retryAfter > 0 && retryAfter <= 2_000, "\(refused)")
        try await Task.sleep(nanoseconds: UInt64(retryAfter + 150) * 1_000_000)
        // Refusals are not charged: after the wait exactly one slot is free again… or two,
        // when both earlier hits left the window; never zero.
        #expect(try ws.registerBegin(TestIdentity()).frameType == "register_challenge")
    }

    @Test func limits_holdAcrossNodes() async throws {
        let cluster = try await TestCluster(["WHISPER_RATE_REGISTER_IP": "2/60"])
        defer { cluster.stop() }
        let (nodeA, nodeB) = (cluster.nodeA, cluster.nodeB)
        #expect(try TestWebSocket(port: nodeA.publicPort).registerBegin(TestIdentity()).frameType == "register_challenge")
        #expect(try TestWebSocket(port: nodeB.publicPort).registerBegin(TestIdentity()).frameType == "register_challenge")
        #expect(try TestWebSocket(port: nodeA.publicPort).registerBegin(TestIdentity()).errorCode == "RATE_LIMITED")
        #expect(try TestWebSocket(port: nodeB.publicPort).registerBegin(TestIdentity()).errorCode == "RATE_LIMITED")
    }
}
