import Foundation
import Testing
import WhisperTesting

/// `typing` over real sockets against real Redis: forwarded only to an online direct peer,
/// at most one per 2 s per (from, to), never queued, never answered, across nodes.
@Suite(.serialized) struct TypingTests {
    /// Sends `typing` without waiting: a relayed or dropped signal has no reply.
    static func typing(_ phone: Phone, to: String, _ isTyping: Bool = true, extra: [String: Any] = [:]) throws {
        var payload: [String: Any] = ["to": to, "isTyping": isTyping]
        payload.merge(extra) { $1 }
        let frame = TestWebSocket.privilegedFrame("typing", token: phone.token, requestId: "t", extra: payload)
        try phone.ws.sendText(String(decoding: try JSONSerialization.data(withJSONObject: frame), as: UTF8.self))
    }

    /// `alice` and `bob` online and direct peers (alice messaged bob; bob has read the delivery).
    static func peers(_ aliceServer: TestServer, _ bobServer: TestServer) throws -> (Phone, Phone) {
        let alice = try Phone.online(aliceServer), bob = try Phone.online(bobServer)
        try alice.sendAccepted(to: bob.id)
        #expect(try bob.ws.receiveJSON().frameType == "message_received")
        return (alice, bob)
    }

    /// What `bob` receives next, after `alice` sends a message: a dropped signal leaves the
    /// message first; a relayed one arrives before it (one Redis connection, scripts in order).
    static func nextAtBob(after alice: Phone, _ bob: Phone) throws -> [String: Any] {
        try alice.sendAccepted(to: bob.id)
        return try bob.ws.receiveJSON()
    }

    @Test func typing_reachesAnOnlineDirectPeer_andASecondWithinTwoSecondsIsDropped() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let (alice, bob) = try Self.peers(server, server)
        try Self.typing(alice, to: bob.id, true)
        let signal = try bob.ws.receiveJSON()
        #expect(signal.frameType == "typing")
        #expect(signal["requestId"] == nil)
        #expect(signal.payload as NSDictionary == ["from": alice.id, "isTyping": true] as NSDictionary)
        // Within 2 s of the last one: dropped, and alice's next reply is her message's ack.
        try Self.typing(alice, to: bob.id, false)
        #expect(try Self.nextAtBob(after: alice, bob).frameType == "message_received")
        try await Task.sleep(nanoseconds: 2_100_000_000)
        try Self.typing(alice, to: bob.id, false)
        #expect(try bob.ws.receiveJSON().payload as NSDictionary == ["from": alice.id, "isTyping": false] as NSDictionary)
    }

    @Test func typing_toANonPeer_orToOneself_isDroppedSilently() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let stranger = try Phone.online(server), bob = try Phone.online(server)
        try Self.typing(stranger, to: bob.id)
        try Self.typing(stranger, to: stranger.id)
        // Their first message makes them peers; nothing arrived at bob before it.
        let next = try Self.nextAtBob(after: stranger, bob)
        #expect(next.frameType == "message_received", "\(next)")
        try stranger.expectQuiet()
    }

    @Test func typing_isNeverKept_forAnOfflinePeer() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let (alice, bob) = try Self.peers(server, server)
        bob.ws.socket.close()
        try await Task.sleep(nanoseconds: 200_000_000)
        try Self.typing(alice, to: bob.id)
        try alice.expectQuiet()
        let back = try Phone.online(server, bob.identity, whisperId: bob.id)
        try back.expectQuiet()
    }

    @Test func typing_crossesNodes() async throws {
        let cluster = try await TestCluster()
        defer { cluster.stop() }
        let (alice, bob) = try Self.peers(cluster.nodeA, cluster.nodeB)
        try Self.typing(alice, to: bob.id)
        let signal = try bob.ws.receiveJSON()
        #expect(signal.frameType == "typing")
        #expect(signal.payload["from"] as? String == alice.id)
    }

    @Test func typingRateLimit_andInvalidPayloads_getTheirCodes_andTheSocketKeepsWorking() async throws {
        let server = try await TestServer(["WHISPER_RATE_TYPING": "2/60"])
        defer { server.stop() }
        let (alice, bob) = try Self.peers(server, server)
        try Self.typing(alice, to: bob.id)
        try Self.typing(alice, to: bob.id)
        try Self.typing(alice, to: bob.id)
        let refused = try alice.ws.receiveJSON()
        #expect(refused.errorCode == "RATE_LIMITED", "\(refused)")
        #expect(refused["requestId"] as? String == "t")
        #expect((refused.payload["retryAfterMs"] as? Int ?? 0) > 0)
        for extra: [String: Any] in [["isTyping": "yes"], ["to": "WSP-ABCD-EFGH-IJ55"], ["mood": "happy"]] {
            try Self.typing(alice, to: bob.id, extra: extra)
            #expect(try alice.ws.receiveJSON().errorCode == "INVALID_PAYLOAD", "\(extra)")
        }
        try alice.expectQuiet()
    }
}
