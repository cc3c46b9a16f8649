import Foundation
import Testing
@testable import WhisperServer
import WhisperTesting
@testable import WhisperStores

/// Sessions after login: single active device (same node and across nodes), refresh,
/// logout, the privileged-frame gate and its per-socket cache.
@Suite(.serialized) struct SessionTests {
    @Test func secondLogin_revokesTheFirstSocket_with4001_andKillsItsToken() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let identity = TestIdentity()
        let old = try TestWebSocket(port: server.publicPort)
        let first = try old.login(identity)
        let new = try TestWebSocket(port: server.publicPort)
        let second = try new.login(identity.onNewDevice(), whisperId: first.whisperId)
        try old.expectRevoked(reason: "new_login", closeCode: 4001)
        // The old token is dead immediately, not only its socket.
        let probe = try TestWebSocket(port: server.publicPort)
        #expect(try probe.privileged("logout", token: first.sessionToken).errorCode == "NOT_REGISTERED")
        // The new socket is untouched and its session works.
        #expect(try new.privileged("session_refresh", token: second.sessionToken).frameType == "session_refreshed")
    }

    @Test func secondLogin_onAnotherNode_closesTheOldSocketThere() async throws {
        let cluster = try await TestCluster()
        defer { cluster.stop() }
        let (nodeA, nodeB) = (cluster.nodeA, cluster.nodeB)
        let identity = TestIdentity()
        let old = try TestWebSocket(port: nodeA.publicPort)
        let first = try old.login(identity)
        let new = try TestWebSocket(port: nodeB.publicPort)
        _ = try new.login(identity.onNewDevice(), whisperId: first.whisperId)
        try old.expectRevoked(reason: "new_login", closeCode: 4001)
        #expect(try TestWebSocket(port: nodeA.publicPort).privileged("logout", token: first.sessionToken).errorCode
                    == "NOT_REGISTERED")
    }

    /// A socket logging in holds the identity on its loop before its route moves there (so
    /// nothing sent after the ack is missed). Here its node hears the route's reply late (a
    /// proxy holds that one Redis reply back) while a message from the other node arrives
    /// through the node's subscriber: the message waits, and the ack is still the first frame.
    @Test func login_hearsItsAckFirst_evenWhenAMessageIsRoutedToItMeanwhile() async throws {
        // One Redis behind the proxy (the cluster pass skips this test: its links follow MOVED).
        guard let port = URLComponents(string: try TestEnvironment.redisURL)?.port else { throw TestSocket.Failure.io("no Redis port") }
        let proxy = try TestTCPProxy(upstreamPort: port, trigger: Array(PresenceScripts.arrive.sha1.utf8))
        defer { proxy.stop() }
        let cluster = try await TestCluster(["WHISPER_REDIS_URL": "redis://127.0.0.1:\(proxy.port)/0"])
        defer { cluster.stop() }
        let recipient = TestIdentity()
        let id = try TestWebSocket(port: cluster.nodeB.publicPort).login(recipient).whisperId
        let sender = try Phone.online(cluster.nodeA)
        let ws = try TestWebSocket(port: cluster.nodeB.publicPort)
        let challenge = try ws.registerBegin(recipient, whisperId: id)
        proxy.arm()
        let proof = try JSONSerialization.data(withJSONObject: TestWebSocket.proofFrame(recipient, challenge: challenge, whisperId: id))
        try ws.sendText(String(decoding: proof, as: UTF8.self))
        let held = await eventually(within: 10) { proxy.isHolding }
        #expect(held, "the route's step was never sent")
        // Accepted: the accept step published the message to node B, whose subscriber delivers it.
        let message = try sender.sendAccepted(to: id)
        try await Task.sleep(for: .milliseconds(300))
        proxy.release()
        let first = try ws.receiveJSON()
        #expect(first.frameType == "register_ack", "the first frame after the proof: \(first)")
        let next = try ws.receiveJSON()
        #expect(next.frameType == "message_received" && next.payload["messageId"] as? String == message.messageId, "\(next)")
    }

    @Test func reLogin_onTheSameSocket_keepsTheSocket_andRevokesOnlyTheOldToken() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let identity = TestIdentity()
        let ws = try TestWebSocket(port: server.publicPort)
        let first = try ws.login(identity)
        let second = try ws.login(identity, whisperId: first.whisperId)
        #expect(try ws.request(["type": "ping", "payload": [:]]).frameType == "pong")
        #expect(try ws.privileged("logout", token: first.sessionToken).errorCode == "NOT_REGISTERED")
        #expect(try ws.privileged("session_refresh", token: second.sessionToken).frameType == "session_refreshed")
    }

    @Test func banRevocation_closesEverySocketOfTheIdentity_with4003() async throws {
        let cluster = try await TestCluster()
        defer { cluster.stop() }
        let (nodeA, nodeB, prefix) = (cluster.nodeA, cluster.nodeB, cluster.prefix)
        let ws = try TestWebSocket(port: nodeB.publicPort)
        let login = try ws.login(TestIdentity())
        // The user's step of a ban's revocation, then its notice (RedisSessionStore.revokeAll).
        let reply = try Identity.redis().command([
            "EVAL", SessionScripts.revokeAll.source, "3", prefix + "sessions:{" + login.whisperId + "}",
            prefix + "revoked:{" + login.whisperId + "}", prefix + "revoking:{" + login.whisperId + "}",
            "banned", "60", "60",
        ])
        guard case .array(let steps) = reply, steps.count == 2, case .array(let revoked) = steps[0] else {
            throw TestSocket.Failure.io("EVAL: \(reply)")
        }
        #expect(revoked.count == 1)
        let hashes = revoked.compactMap(\.text).joined(separator: "\n")
        _ = try Identity.redis().command(["PUBLISH", prefix + "session-revocations", "v1\nbanned\n\(login.whisperId)\n-\n0\n" + hashes])
        try ws.expectRevoked(reason: "banned", closeCode: 4003)
        #expect(try TestWebSocket(port: nodeA.publicPort).privileged("logout", token: login.sessionToken).errorCode
                    == "NOT_REGISTERED")
    }

    @Test func refresh_returnsANewToken_andTheOldOneIsDeadAtOnce() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let ws = try TestWebSocket(port: server.publicPort)
        let login = try ws.login(TestIdentity())
        let before = Int64(Date().timeIntervalSince1970 * 1000)
        let refreshed = try ws.request(TestWebSocket.privilegedFrame("session_refresh", token: login.sessionToken,
                                                                     requestId: "rf"))
        #expect(refreshed.frameType == "session_refreshed", "\(refreshed)")
        #expect(refreshed["requestId"] as? String == "rf")
        let newToken = try #require(refreshed.payload["sessionToken"] as? String)
        #expect(newToken != login.sessionToken && Data(base64Encoded: newToken)?.count == 32)
        let expiresAt = refreshed.payload["sessionExpiresAt"] as? Int64 ?? 0
        #expect(abs(expiresAt - (before + 7 * 86_400_000)) < 10_000)
        // Dead on this socket (its cache moved to the new token) and everywhere else.
        #expect(try ws.privileged("logout", token: login.sessionToken).errorCode == "NOT_REGISTERED")
        #expect(try TestWebSocket(port: server.publicPort).privileged("logout", token: login.sessionToken).errorCode
                    == "NOT_REGISTERED")
        // The new token works on a fresh socket (a reconnect) too.
        #expect(try TestWebSocket(port: server.publicPort).privileged("session_refresh", token: newToken).frameType
                    == "session_refreshed")
    }

    @Test func refresh_onOneSocket_dropsTheCachedSessionOnAnotherSocket() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let a = try TestWebSocket(port: server.publicPort)
        let login = try a.login(TestIdentity())
        let b = try TestWebSocket(port: server.publicPort)
        // B caches the session (frame passes the gate, then fails validation in the handler).
        #expect(try b.privileged("logout", token: login.sessionToken, extra: ["x": 1]).errorCode == "INVALID_PAYLOAD")
        #expect(try a.privileged("session_refresh", token: login.sessionToken).frameType == "session_refreshed")
        // The notice reaches B through Redis pub/sub within milliseconds.
        try await Task.sleep(nanoseconds: 300_000_000)
        #expect(try b.privileged("logout", token: login.sessionToken, extra: ["x": 1]).errorCode == "NOT_REGISTERED")
    }

    @Test func logout_killsTheToken_andTheSocketStaysOpenUnauthenticated() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let ws = try TestWebSocket(port: server.publicPort)
        let login = try ws.login(TestIdentity())
        #expect(try Identity.metricValue(server, "whisper_ws_authenticated_connections") == 1)
        let reply = try ws.request(TestWebSocket.privilegedFrame("logout", token: login.sessionToken, requestId: "lo"))
        #expect(reply.frameType == "logged_out")
        #expect(reply["requestId"] as? String == "lo")
        #expect((reply["payload"] as? [String: Any])?.isEmpty == true)
        #expect(try Identity.metricValue(server, "whisper_ws_authenticated_connections") == 0)
        #expect(try ws.request(["type": "ping", "payload": [:]]).frameType == "pong")
        #expect(try ws.privileged("session_refresh", token: login.sessionToken).errorCode == "NOT_REGISTERED")
        #expect(try TestWebSocket(port: server.publicPort).privileged("session_refresh", token: login.sessionToken)
                    .errorCode == "NOT_REGISTERED")
        // And the socket can log in again.
        #expect(try ws.login(TestIdentity()).whisperId.hasPrefix("WSP-"))
    }

    @Test func tokens_alternatingOnOneSocket_eachGetTheirOwnAnswer() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let ws = try TestWebSocket(port: server.publicPort)
        let login = try ws.login(TestIdentity())
        // The same length and all but the first character: what the socket remembered of the
        // last token must never stand in for a different one.
        let first = login.sessionToken.first == "A" ? "B" : "A"
        let forged = first + login.sessionToken.dropFirst()
        for _ in 0..<2 {
            #expect(try ws.privileged("fetch_pending", token: login.sessionToken).frameType == "pending_messages")
            #expect(try ws.privileged("fetch_pending", token: forged).errorCode == "NOT_REGISTERED")
        }
        #expect(try ws.privileged("fetch_pending", token: login.sessionToken).frameType == "pending_messages")
    }

    @Test func privilegedFrames_needVersionsAndASession_beforeAnyHandlerRuns() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let ws = try TestWebSocket(port: server.publicPort)
        for type in ["session_refresh", "logout"] {
            #expect(try ws.privileged(type, token: nil).errorCode == "NOT_REGISTERED", "\(type)")
            #expect(try ws.privileged(type, token: "not-a-token").errorCode == "NOT_REGISTERED")
            #expect(try ws.privileged(type, token: Data(count: 32).base64EncodedString()).errorCode == "NOT_REGISTERED")
        }
        let login = try ws.login(TestIdentity())
        for (key, value) in [("protocolVersion", 2), ("cryptoVersion", 0)] as [(String, Any)] {
            let reply = try ws.privileged("logout", token: login.sessionToken, extra: [key: value])
            #expect(reply.errorCode == "INVALID_PAYLOAD", "\(key)")
        }
        var noVersion = TestWebSocket.privilegedFrame("logout", token: login.sessionToken)
        var payload = noVersion.payload
        payload["cryptoVersion"] = nil
        noVersion["payload"] = payload
        #expect(try ws.request(noVersion).errorCode == "INVALID_PAYLOAD")
        #expect(try ws.privileged("logout", token: nil, extra: ["sessionToken": 42]).errorCode == "INVALID_PAYLOAD")
        // Versions are checked before the session: an unauthenticated frame with a bad version is INVALID_PAYLOAD.
        #expect(try ws.privileged("logout", token: nil, extra: ["protocolVersion": 2]).errorCode == "INVALID_PAYLOAD")
        // None of the above touched the session.
        #expect(try ws.privileged("session_refresh", token: login.sessionToken).frameType == "session_refreshed")
    }

    @Test func cachedSession_servesFramesWithoutRedis_andIsRevalidatedAfterTheSubscriberReconnects() async throws {
        try await withPrivateService(.redis) { redis in
            let server = try await TestServer(["WHISPER_REDIS_URL": redis.url])
            defer { server.stop() }
            let admin = try TestRedis(url: redis.url)
            let ws = try TestWebSocket(port: server.publicPort)
            let login = try ws.login(TestIdentity())
            let token = try #require(Data(base64Encoded: login.sessionToken))
            // The session disappears without a notice (as if the notice were lost).
            _ = try admin.command(["DEL", server.config.redisPrefix + "session:" + sha256Hex(Array(token))])
            // The socket's cache still vouches for it: the gate passes, the handler rejects the payload.
            #expect(try ws.privileged("logout", token: login.sessionToken, extra: ["x": 1]).errorCode == "INVALID_PAYLOAD")
            // The subscriber reconnects and every loop re-checks its cached sessions.
            _ = try admin.command(["CLIENT", "KILL", "TYPE", "pubsub"])
            #expect(await eventually(within: 5, every: 0.1) {
                (try? ws.privileged("logout", token: login.sessionToken, extra: ["x": 1]).errorCode) == "NOT_REGISTERED"
            })
            #expect(try Identity.metricValue(server, "whisper_ws_authenticated_connections") == 0)
        }
    }
}
