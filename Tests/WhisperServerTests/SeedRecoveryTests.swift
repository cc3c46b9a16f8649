import Foundation
import Testing
import WhisperStorage
import WhisperTesting

/// `register_proof` without `whisperId` for keys that already belong to an identity (contract
/// §15, docs/protocol.md "Login"): the seed phrase alone gets the identity back.
@Suite(.serialized) struct SeedRecoveryTests {
    static func identities(withSignKey identity: TestIdentity, _ db: PostgresPool) async throws -> [String] {
        try await db.query("SELECT whisper_id FROM users WHERE sign_public_key = $1 ORDER BY created_at",
                           [.bytea(identity.signing.publicKey)]).compactMap { $0.string("whisper_id") }
    }

    @Test func seedOnlyLogin_withKnownKeys_logsIntoThatIdentity_revokesTheOtherSocket_andKeepsItsQueue() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let alice = try Phone.online(server), bob = try Phone.online(server)
        let sent = try bob.sendAccepted(to: alice.id)
        #expect(try alice.ws.receiveJSON().frameType == "message_received")

        // A new phone that kept only the 12 words: same keys, no whisperId.
        let phone = alice.identity.onNewDevice()
        let ws = try TestWebSocket(port: server.publicPort)
        let login = try ws.login(phone)
        #expect(login.whisperId == alice.id)
        #expect(login.ack.payload["success"] as? Bool == true && login.sessionToken != alice.token)
        try alice.ws.expectRevoked(reason: "new_login", closeCode: 4001)
        let pending = try Phone(ws: ws, identity: phone, login: login).fetchAll().messages
        #expect(pending.map { $0["messageId"] as? String } == [sent.messageId])

        let db = try Identity.database()
        defer { db.shutdown() }
        #expect(try await Self.identities(withSignKey: alice.identity, db) == [alice.id])
        let devices = try await db.query("SELECT count(*) AS n FROM devices WHERE whisper_id = $1", [.text(alice.id)])
        #expect(devices.first?.int64("n") == 2)
    }

    @Test func seedOnlyLogin_withAKnownSigningKeyButAnotherEncryptionKey_isAuthFailed() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let owner = try Phone.online(server)
        var impostor = owner.identity.onNewDevice()
        impostor.encPublicKey = (0..<32).map { _ in UInt8.random(in: 0...255) }
        let reply = try TestWebSocket(port: server.publicPort).registerReply(impostor)
        #expect(reply.errorCode == "AUTH_FAILED", "\(reply)")
        try owner.expectQuiet()
        let db = try Identity.database()
        defer { db.shutdown() }
        #expect(try await Self.identities(withSignKey: owner.identity, db) == [owner.id], "no identity minted for the key")
    }

    @Test func seedOnlyLogin_ofABannedIdentity_isUserBanned() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let identity = TestIdentity()
        let login = try TestWebSocket(port: server.publicPort).login(identity)
        let db = try Identity.database()
        defer { db.shutdown() }
        _ = try await db.query("INSERT INTO bans (whisper_id, reason, created_by) VALUES ($1, 'spam', 'test')", [.text(login.whisperId)])
        let reply = try TestWebSocket(port: server.publicPort).registerReply(identity.onNewDevice())
        #expect(reply.errorCode == "USER_BANNED", "\(reply)")
        #expect(try await Self.identities(withSignKey: identity, db) == [login.whisperId])
    }

    /// Two phones restored from the same seed register at the same moment: the unique signing
    /// key lets one insert win, and every other proof logs into the winner (no INTERNAL_ERROR,
    /// no second identity).
    @Test func concurrentFirstRegistrations_withTheSameKeys_allEndInOneIdentity() async throws {
        let server = try await TestServer(["WHISPER_THREADS": "4"])
        defer { server.stop() }
        let identity = TestIdentity()
        var proofs: [(TestWebSocket, String)] = []
        for _ in 0..<8 {
            let ws = try TestWebSocket(port: server.publicPort)
            let device = identity.onNewDevice()
            let proof = try TestWebSocket.proofFrame(device, challenge: try ws.registerBegin(device))
            proofs.append((ws, String(decoding: try JSONSerialization.data(withJSONObject: proof), as: UTF8.self)))
        }
        for (ws, text) in proofs { try ws.sendText(text) }
        let acks = try proofs.map { try $0.0.receiveJSON() }
        #expect(acks.allSatisfy { $0.frameType == "register_ack" }, "\(acks)")
        let ids = Set(acks.compactMap { $0.payload["whisperId"] as? String })
        #expect(ids.count == 1, "\(ids)")
        let db = try Identity.database()
        defer { db.shutdown() }
        #expect(try await Self.identities(withSignKey: identity, db) == Array(ids))
    }
}
