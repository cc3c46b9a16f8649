import Foundation
import Testing
import WhisperProtocol
import WhisperTesting

/// The limits of spec §11 set from the environment take effect end to end
/// (docs/operations.md "Configuration"): lower than the defaults, they refuse frames the
/// defaults accept, and the fetch page follows its setting.
@Suite struct ConfiguredLimitsTests {
    @Test func configuredTextCapSkewAndPageSize_applyToRealFrames() async throws {
        let server = try await TestServer(["WHISPER_MAX_TEXT_BYTES": "100", "WHISPER_TIMESTAMP_SKEW_MS": "60000",
                                           "WHISPER_FETCH_PENDING_DEFAULT_LIMIT": "2"])
        defer { server.stop() }
        let alice = try Phone.online(server), bob = try Phone.online(server)
        bob.ws.socket.close()
        await Messaging.waitForAuthenticated(server, count: 1)

        // 100 bytes of plaintext are 116 of ciphertext: at the cap, accepted; one more, refused,
        // although the default cap (8,016) would take it.
        try alice.sendAccepted(to: bob.id, ciphertextBytes: 116)
        #expect(117 < Limits.default.maxTextCiphertextBytes)
        #expect(try alice.send(TestMessage(from: alice.id, to: bob.id, ciphertextBytes: 117)).errorCode == "INVALID_PAYLOAD")
        // Two minutes off server time: inside the default ±10 min, outside the configured ±1 min.
        let late = TestMessage(from: alice.id, to: bob.id, timestamp: TestMessage.nowMillis() - 120_000)
        #expect(try alice.send(late).errorCode == "INVALID_TIMESTAMP")
        try alice.sendAccepted(to: bob.id)
        try alice.sendAccepted(to: bob.id)

        // Without `limit`, pages of the configured 2.
        let back = try bob.reconnect(server)
        var skipped: [[String: Any]] = []
        try back.ws.sendText(Self.json(TestWebSocket.privilegedFrame("fetch_pending", token: back.token, requestId: "f")))
        let first = try back.ws.receive(type: "pending_messages", skipped: &skipped)
        #expect((first.payload["messages"] as? [Any])?.count == 2)
        let cursor = try #require(first.payload["nextCursor"] as? String)
        try back.ws.sendText(Self.json(TestWebSocket.privilegedFrame("fetch_pending", token: back.token, requestId: "f",
                                                                      extra: ["cursor": cursor])))
        let second = try back.ws.receive(type: "pending_messages", skipped: &skipped)
        #expect((second.payload["messages"] as? [Any])?.count == 1)
        #expect(second.payload["nextCursor"] == nil || second.payload["nextCursor"] is NSNull)
    }

    static func json(_ frame: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: frame), as: UTF8.self)
    }
}
