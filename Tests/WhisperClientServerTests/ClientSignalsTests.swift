import Foundation
import Testing
import WhisperClient
import WhisperProtocol
import WhisperStorage
import WhisperTesting

/// The frames around messages, client helper against the real server, two clients each:
/// typing, presence, read receipts, push-token registration (docs/protocol.md "Typing",
/// "Presence", "delivery_receipt", "update_tokens").
@Suite(.serialized) struct ClientSignalsTests {
    /// Two clients that exchanged a message: direct peers, to whom typing and presence go.
    static func peers(_ server: TestServer) throws -> (ClientDevice, ClientDevice) {
        let alice = try ClientDevice.online(server), bob = try ClientDevice.online(server)
        try alice.session.send(text: "hi", to: try bob.id)
        try bob.pump { !bob.messages.isEmpty }
        return (alice, bob)
    }

    @Test func typing_reachesThePeer_andARefusalComesBackAsAnEvent() async throws {
        let server = try await TestServer(["WHISPER_RATE_TYPING": "1/60"])
        defer { server.stop() }
        let (alice, bob) = try Self.peers(server)
        let aliceId = try alice.id
        try alice.session.setTyping(true, to: try bob.id)
        try bob.pump { bob.events.contains { if case .typing(aliceId, true) = $0 { true } else { false } } }

        // The second signal within the minute is over the TYPING limit: the server answers only
        // then, and the answer reaches the app although nobody waited for it.
        try alice.session.setTyping(false, to: try bob.id)
        try alice.pump {
            alice.events.contains { if case .refused("typing", .server("RATE_LIMITED", _, _)) = $0 { true } else { false } }
        }
        try bob.idle(seconds: 0.5)
        #expect(!bob.events.contains { if case .typing(_, false) = $0 { true } else { false } })
    }

    @Test func presence_ofAPeerGoingAndComingBack_reachesTheApp() async throws {
        let server = try await TestServer(["WHISPER_PRESENCE_OFFLINE_GRACE_MS": "0", "WHISPER_PRESENCE_MIN_INTERVAL_MS": "0"])
        defer { server.stop() }
        let (alice, bob) = try Self.peers(server)
        let bobId = try bob.id
        bob.session.disconnect()
        try alice.pump { alice.events.contains { if case .presence(bobId, online: false, _) = $0 { true } else { false } } }
        try bob.session.connect()
        try alice.pump { alice.events.contains { if case .presence(bobId, online: true, _) = $0 { true } else { false } } }
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        for case .presence(_, _, let at) in alice.events { #expect(abs(at - now) < 10_000) }
    }

    @Test func aReadReceipt_reachesTheSender_andMovesItsOutboxEntryToRead() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let alice = try ClientDevice.online(server), bob = try ClientDevice.online(server)
        let sent = try alice.session.send(text: "did you read this?", to: try bob.id)
        try bob.pump { !bob.messages.isEmpty }
        try alice.pump { alice.delivered.contains(sent) }
        #expect(alice.session.outbox.entry(sent)?.state == .delivered)
        #expect(!alice.events.contains { if case .read = $0 { true } else { false } }, "delivered is not read")

        guard let message = bob.messages.first else { return }
        try bob.session.markRead(message)
        let bobId = try bob.id
        try alice.pump { alice.events.contains { if case .read(sent, bobId) = $0 { true } else { false } } }
        #expect(alice.session.outbox.entry(sent)?.state == .read)
        try alice.restart()
        #expect(alice.session.outbox.entry(sent)?.state == .read, "persisted")
    }

    @Test func pushTokens_areStoredForTheSessionsDevice_andABadOneIsRefused() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let alice = try ClientDevice.online(server)
        try alice.session.registerPushTokens(pushToken: "apns-\(UUID().uuidString)", voipToken: "voip-1")
        try alice.session.registerPushTokens(pushToken: "apns-2")
        #expect(try await Self.tokens(try alice.id) == ["apns-2 voip-1"], "a nil token keeps the stored one")
        let refused = Result { () throws(ClientError) in try alice.session.registerPushTokens(pushToken: "with space") }
        guard case .failure(.server(code: "INVALID_PAYLOAD", _, _)) = refused else {
            Issue.record("a token with a space: \(refused)")
            return
        }
        #expect(alice.session.isConnected, "the socket keeps working")
        try alice.session.registerPushTokens(pushToken: "apns-3")
    }

    /// `push_token voip_token` of every device row of `whisperId`.
    static func tokens(_ whisperId: WhisperID) async throws -> [String] {
        let db = PostgresPool(url: try TestEnvironment.databaseURL, size: 1)
        defer { db.shutdown() }
        let rows = try await db.query("SELECT push_token, voip_token FROM devices WHERE whisper_id = $1", [.text(whisperId.string)])
        return rows.map { "\($0.string("push_token") ?? "-") \($0.string("voip_token") ?? "-")" }
    }
}
