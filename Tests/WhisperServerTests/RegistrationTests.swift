import Foundation
import Testing
import WhisperProtocol
import WhisperServices
import WhisperTesting

/// `register_begin` / `register_proof` over real WebSockets against PostgreSQL and Redis.
@Suite(.serialized) struct RegistrationTests {
    @Test func newRegistration_mintsAChecksummedID_andReturnsASessionOnce() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let ws = try TestWebSocket(port: server.publicPort)
        let identity = TestIdentity()
        let before = Int64(Date().timeIntervalSince1970 * 1000)
        let challenge = try ws.registerBegin(identity)
        #expect(challenge.frameType == "register_challenge")
        #expect(challenge["requestId"] as? String == "begin")
        let payload = challenge.payload
        #expect(CanonicalUUID.isValid(payload["challengeId"] as? String ?? ""))
        #expect(Data(base64Encoded: payload["challenge"] as? String ?? "")?.count == 32)
        let expiresAt = payload["expiresAt"] as? Int64 ?? 0
        #expect(abs(expiresAt - (before + 60_000)) < 5_000)

        let ack = try ws.request(TestWebSocket.proofFrame(identity, challenge: challenge))
        #expect(ack.frameType == "register_ack", "\(ack)")
        #expect(ack["requestId"] as? String == "proof")
        let ackPayload = ack.payload
        #expect(ackPayload["success"] as? Bool == true)
        let whisperId = ackPayload["whisperId"] as? String ?? ""
        #expect(WhisperID.isValid(whisperId))
        #expect(Data(base64Encoded: ackPayload["sessionToken"] as? String ?? "")?.count == 32)
        let sessionExpiresAt = ackPayload["sessionExpiresAt"] as? Int64 ?? 0
        #expect(abs(sessionExpiresAt - (before + 7 * 86_400_000)) < 10_000)
        #expect(abs((ackPayload["serverTime"] as? Int64 ?? 0) - before) < 10_000)
        #expect(try Identity.metricValue(server, "whisper_ed25519_verify_seconds_count") == 1)

        let db = try Identity.database()
        defer { db.shutdown() }
        let users = try await db.query("SELECT encode(sign_public_key, 'base64') AS k FROM users WHERE whisper_id = $1",
                                       [.text(whisperId)])
        #expect(users.first?.string("k") == identity.signPublicKeyBase64)
        let devices = try await db.query("SELECT device_id::text AS d, platform FROM devices WHERE whisper_id = $1",
                                         [.text(whisperId)])
        #expect(devices.first?.string("d") == identity.deviceId)
        #expect(devices.first?.string("platform") == "ios")
    }

    @Test func recoveryLogin_withTheSameKeys_keepsTheID_andUpsertsTheDevice() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let identity = TestIdentity()
        let first = try TestWebSocket(port: server.publicPort).login(identity, extra: ["pushToken": "apns-token-1"])
        let phone = identity.onNewDevice(platform: "android")
        let second = try TestWebSocket(port: server.publicPort)
            .login(phone, whisperId: first.whisperId, extra: ["pushToken": "fcm:token-2"])
        #expect(second.whisperId == first.whisperId)
        #expect(second.sessionToken != first.sessionToken)

        let db = try Identity.database()
        defer { db.shutdown() }
        let rows = try await db.query(
            "SELECT device_id::text AS d, platform, push_token FROM devices WHERE whisper_id = $1 ORDER BY created_at",
            [.text(first.whisperId)])
        #expect(rows.count == 2)
        #expect(rows.last?.string("d") == phone.deviceId)
        #expect(rows.last?.string("platform") == "android")
        #expect(rows.last?.string("push_token") == "fcm:token-2")
        // Device ids are accepted in any case and stored lower case.
        let upper = TestIdentity(signing: phone.signing, encPublicKey: phone.encPublicKey,
                                 deviceId: phone.deviceId.uppercased(), platform: "android")
        _ = try TestWebSocket(port: server.publicPort).login(upper, whisperId: first.whisperId)
        let count = try await db.query("SELECT count(*) AS n FROM devices WHERE whisper_id = $1", [.text(first.whisperId)])
        #expect(count.first?.int64("n") == 2)
    }

    @Test func recoveryLogin_withOtherKeys_orAnUnknownID_isAuthFailed_withOneMessage() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let owner = try TestWebSocket(port: server.publicPort).login(TestIdentity())
        let ws = try TestWebSocket(port: server.publicPort)
        let wrongKeys = try ws.registerReply(TestIdentity(), whisperId: owner.whisperId)
        #expect(wrongKeys.errorCode == "AUTH_FAILED")
        // Same sign key, different encryption key: also refused.
        let unknown = try ws.registerReply(TestIdentity(), whisperId: Identity.unregisteredID())
        #expect(unknown.errorCode == "AUTH_FAILED")
        #expect(wrongKeys.payload["message"] as? String == unknown.payload["message"] as? String)
        #expect(unknown["requestId"] as? String == "proof")
    }

    @Test func recoveryLogin_withADifferentEncryptionKey_isAuthFailed() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let identity = TestIdentity()
        let owner = try TestWebSocket(port: server.publicPort).login(identity)
        var other = identity.onNewDevice()
        other.encPublicKey = (0..<32).map { _ in UInt8.random(in: 0...255) }
        #expect(try TestWebSocket(port: server.publicPort).registerReply(other, whisperId: owner.whisperId).errorCode
                    == "AUTH_FAILED")
    }

    @Test func badSignature_isAuthFailed() async throws {
        let begun = try await Begun()
        let (server, ws, identity, challenge) = (begun.server, begun.ws, begun.identity, begun.challenge)
        defer { server.stop() }
        // Signed by another key than the one presented.
        let signature = Data(TestSigningKey.random().sign([UInt8](repeating: 1, count: 32))).base64EncodedString()
        let frame = try TestWebSocket.proofFrame(identity, challenge: challenge, extra: ["signature": signature])
        #expect(try ws.request(frame).errorCode == "AUTH_FAILED")
    }

    @Test func signatureOverAHashOfTheChallenge_isAuthFailed() async throws {
        let begun = try await Begun()
        let (server, ws, identity, challenge) = (begun.server, begun.ws, begun.identity, begun.challenge)
        defer { server.stop() }
        let bytes = Data(base64Encoded: challenge.payload["challenge"] as? String ?? "") ?? Data()
        // Contract §4: the raw 32 bytes are signed; a signature over anything else fails.
        let signature = Data(identity.signing.sign(Array(bytes) + [0])).base64EncodedString()
        let frame = try TestWebSocket.proofFrame(identity, challenge: challenge, extra: ["signature": signature])
        #expect(try ws.request(frame).errorCode == "AUTH_FAILED")
    }

    @Test func expiredChallenge_isAuthFailed() async throws {
        let begun = try await Begun(["WHISPER_CHALLENGE_TTL_SECONDS": "1"])
        let (server, ws, identity, challenge) = (begun.server, begun.ws, begun.identity, begun.challenge)
        defer { server.stop() }
        let expiresAt = challenge.payload["expiresAt"] as? Int64 ?? 0
        #expect(abs(expiresAt - Int64(Date().timeIntervalSince1970 * 1000) - 1_000) < 2_000)
        try await Task.sleep(nanoseconds: 2_200_000_000)
        #expect(try ws.request(TestWebSocket.proofFrame(identity, challenge: challenge)).errorCode == "AUTH_FAILED")
    }

    @Test func reusedChallenge_isAuthFailed_evenAfterASuccessfulProof() async throws {
        let begun = try await Begun()
        let (server, ws, identity, challenge) = (begun.server, begun.ws, begun.identity, begun.challenge)
        defer { server.stop() }
        let proof = try TestWebSocket.proofFrame(identity, challenge: challenge)
        #expect(try ws.request(proof).frameType == "register_ack")
        #expect(try ws.request(proof).errorCode == "AUTH_FAILED")
        // A failed proof also spends the challenge: one challenge, one attempt.
        let second = try ws.registerBegin(identity)
        let signature = Data([UInt8](repeating: 7, count: 64)).base64EncodedString()
        let bad = try TestWebSocket.proofFrame(identity, challenge: second, extra: ["signature": signature])
        #expect(try ws.request(bad).errorCode == "AUTH_FAILED")
        #expect(try ws.request(TestWebSocket.proofFrame(identity, challenge: second)).errorCode == "AUTH_FAILED")
    }

    @Test func proofFromAnotherDevice_orForAnotherIdentity_thanTheBegin_isAuthFailed() async throws {
        let begun = try await Begun()
        let (server, ws, identity, challenge) = (begun.server, begun.ws, begun.identity, begun.challenge)
        defer { server.stop() }
        let otherDevice = TestIdentity(signing: identity.signing, encPublicKey: identity.encPublicKey)
        #expect(try ws.request(TestWebSocket.proofFrame(otherDevice, challenge: challenge)).errorCode == "AUTH_FAILED")
        // Begun as a new identity, proved as a recovery of someone's id.
        let owner = try TestWebSocket(port: server.publicPort).login(identity)
        let fresh = try ws.registerBegin(identity)
        let frame = try TestWebSocket.proofFrame(identity, challenge: fresh, whisperId: owner.whisperId)
        #expect(try ws.request(frame).errorCode == "AUTH_FAILED")
    }

    @Test func badChecksum_isInvalidPayload_inBeginAndProof() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let ws = try TestWebSocket(port: server.publicPort)
        let identity = TestIdentity()
        let bad = Identity.withBadChecksum(WhisperID.random().string)
        #expect(!WhisperID.isValid(bad))
        #expect(try ws.registerBegin(identity, whisperId: bad).errorCode == "INVALID_PAYLOAD")
        #expect(try ws.registerBegin(identity, whisperId: "wsp-aaaa-aaaa-aaaa").errorCode == "INVALID_PAYLOAD")
        let challenge = try ws.registerBegin(identity)
        let proof = try TestWebSocket.proofFrame(identity, challenge: challenge, whisperId: bad)
        let reply = try ws.request(proof)
        #expect(reply.errorCode == "INVALID_PAYLOAD")
        #expect((reply.payload["message"] as? String)?.contains("whisperId") == true)
        // Validation happens before the challenge is touched: it is still good.
        #expect(try ws.request(TestWebSocket.proofFrame(identity, challenge: challenge)).frameType == "register_ack")
    }

    @Test func twoRacingProofs_forOneChallenge_exactlyOneSucceeds() async throws {
        let server = try await TestServer(["WHISPER_RATE_REGISTER_IP": "1000/60"])
        defer { server.stop() }
        for _ in 0..<5 {
            let identity = TestIdentity()
            let a = try TestWebSocket(port: server.publicPort)
            let b = try TestWebSocket(port: server.publicPort)
            let challenge = try a.registerBegin(identity)
            let proof = try JSONSerialization.data(withJSONObject: TestWebSocket.proofFrame(identity, challenge: challenge))
            let text = String(decoding: proof, as: UTF8.self)
            try a.sendText(text)
            try b.sendText(text)
            let replies = [try a.receiveJSON(), try b.receiveJSON()]
            #expect(replies.filter { $0.frameType == "register_ack" }.count == 1, "\(replies)")
            #expect(replies.filter { $0.errorCode == "AUTH_FAILED" }.count == 1, "\(replies)")
        }
    }

    @Test func bannedIdentity_isUserBanned_afterTheSignatureVerifies_andAnExpiredBanDoesNotBlock() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let identity = TestIdentity()
        let login = try TestWebSocket(port: server.publicPort).login(identity)
        let db = try Identity.database()
        defer { db.shutdown() }
        _ = try await db.query("INSERT INTO bans (whisper_id, reason, until, created_by) VALUES ($1, 'spam', now() - interval '1 hour', 'test')",
                               [.text(login.whisperId)])
        #expect(try TestWebSocket(port: server.publicPort).login(identity, whisperId: login.whisperId).whisperId == login.whisperId)

        _ = try await db.query("UPDATE bans SET until = now() + interval '1 hour' WHERE whisper_id = $1", [.text(login.whisperId)])
        let ws = try TestWebSocket(port: server.publicPort)
        #expect(try ws.registerReply(identity, whisperId: login.whisperId).errorCode == "USER_BANNED")
        // The ban is checked only after the signature: a bad proof is AUTH_FAILED, which says nothing about bans.
        #expect(try ws.registerReply(TestIdentity(), whisperId: login.whisperId).errorCode == "AUTH_FAILED")

        _ = try await db.query("UPDATE bans SET until = NULL WHERE whisper_id = $1", [.text(login.whisperId)])
        #expect(try ws.registerReply(identity, whisperId: login.whisperId).errorCode == "USER_BANNED")
    }

    @Test func invalidRegisterPayloads_areInvalidPayload_withRequestIdEchoed() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let ws = try TestWebSocket(port: server.publicPort)
        let identity = TestIdentity()
        let base = TestWebSocket.beginFrame(identity)
        let mutations: [(String, Any?)] = [
            ("deviceId", "not-a-uuid"), ("deviceId", nil), ("platform", "windows"), ("platform", nil),
            ("protocolVersion", 2), ("cryptoVersion", "1"), ("protocolVersion", nil), ("extra", true),
        ]
        for (key, value) in mutations {
            var frame = base
            var payload = frame.payload
            payload[key] = value
            frame["payload"] = payload
            let reply = try ws.request(frame)
            #expect(reply.errorCode == "INVALID_PAYLOAD", "\(key)=\(String(describing: value)): \(reply)")
            #expect(reply["requestId"] as? String == "begin")
        }
        let challenge = try ws.registerBegin(identity)
        for (key, value) in [("encPublicKey", "AAAA"), ("signPublicKey", "not base64!"), ("signature", "AAAA"),
                             ("pushToken", String(repeating: "a", count: 4097)), ("voipToken", "has space")] {
            let frame = try TestWebSocket.proofFrame(identity, challenge: challenge, extra: [key: value])
            #expect(try ws.request(frame).errorCode == "INVALID_PAYLOAD", "\(key)")
        }
        // At the push-token cap: accepted (and the challenge was never consumed above).
        let atCap = try TestWebSocket.proofFrame(identity, challenge: challenge,
                                                 extra: ["pushToken": String(repeating: "a", count: 4096)])
        #expect(try ws.request(atCap).frameType == "register_ack")
    }

    @Test func redis_holdsOnlyTheTokenHash() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let login = try TestWebSocket(port: server.publicPort).login(TestIdentity())
        let token = try #require(Data(base64Encoded: login.sessionToken))
        let redis = try Identity.redis()
        let prefix = server.config.redisPrefix
        let hash = sha256Hex(Array(token))
        #expect(try redis.command(["EXISTS", prefix + "session:" + hash]) == .integer(1))
        #expect(try redis.command(["SISMEMBER", prefix + "sessions:{" + login.whisperId + "}", hash]) == .integer(1))
        let ttl = try redis.command(["TTL", prefix + "session:" + hash])
        if case .integer(let seconds) = ttl { #expect(seconds > 7 * 86_400 - 60 && seconds <= 7 * 86_400) } else {
            Issue.record("TTL reply \(ttl)")
        }
        // Nothing under the prefix holds the token, in any encoding.
        let tokenHex = token.map { String(format: "%02x", $0) }.joined()
        for key in try redis.keys(prefix: prefix) {
            #expect(!key.contains(login.sessionToken) && !key.contains(tokenHex))
            guard case .bulk(let dump?) = try redis.command(["DUMP", key]) else { continue }
            #expect(dump.firstRange(of: Array(token)) == nil, "\(key)")
            #expect(dump.firstRange(of: Array(login.sessionToken.utf8)) == nil, "\(key)")
            #expect(dump.firstRange(of: Array(tokenHex.utf8)) == nil, "\(key)")
        }
    }
}

/// A fresh server, a socket on it, a new identity and the `register_challenge` its
/// `register_begin` got: where most proof tests start.
private struct Begun {
    let server: TestServer
    let ws: TestWebSocket
    let identity = TestIdentity()
    let challenge: [String: Any]

    init(_ overrides: [String: String] = [:]) async throws {
        server = try await TestServer(overrides)
        do {
            ws = try TestWebSocket(port: server.publicPort)
            challenge = try ws.registerBegin(identity)
        } catch {
            server.stop()
            throw error
        }
    }
}

func sha256Hex(_ bytes: [UInt8]) -> String {
    Hex.encode(Sodium.sha256(bytes))
}
