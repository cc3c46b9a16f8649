import Foundation
import Testing
import WhisperTesting

/// Dependencies going away and coming back, TLS, and the SIGTERM drain.
@Suite(.serialized) struct LifecycleTests {
    /// Polls /ready until its status is `expected` (bounded).
    private func readyStatus(_ port: Int, becomes expected: Int, within seconds: Double = 15) async -> Bool {
        await eventually(within: seconds, every: 0.1) { (try? TestHTTP.get(port: port, "/ready"))?.status == expected }
    }

    /// Stops `dependency`, expects /ready to fail on its `check` while the gateway still
    /// answers, then starts it again and expects /ready to recover.
    private func dependencyRestart(_ kind: PrivateService.Kind, check: String, environment: String,
                                   recoversWithin seconds: Double) async throws {
        try await withPrivateService(kind) { dependency in
            let server = try await TestServer([environment: dependency.url])
            defer { server.stop() }
            #expect(await readyStatus(server.adminPort, becomes: 200))
            try await dependency.stop()
            #expect(await readyStatus(server.adminPort, becomes: 503))
            let down = try TestHTTP.get(port: server.adminPort, "/ready")
            #expect((down.json?["checks"] as? [String: String])?[check] == "fail")
            let ws = try TestWebSocket(port: server.publicPort)  // the gateway still answers
            #expect(try ws.request(["type": "ping", "payload": [:]])["type"] as? String == "pong")
            try await dependency.start()
            #expect(await readyStatus(server.adminPort, becomes: 200, within: seconds))
        }
    }

    @Test func redisRestart_readyGoes503_thenRecovers_andTheServerKeepsServing() async throws {
        try await dependencyRestart(.redis, check: "redis", environment: "WHISPER_REDIS_URL", recoversWithin: 15)
    }

    @Test func postgresRestart_readyGoes503_thenRecovers() async throws {
        try await dependencyRestart(.pg, check: "postgres", environment: "WHISPER_DATABASE_URL", recoversWithin: 30)
    }

    @Test func drain_closesWebSocketsWith1001_andStopsAccepting() async throws {
        let server = try await TestServer()
        let ws = try TestWebSocket(port: server.publicPort)
        #expect(try ws.request(["type": "ping", "payload": [:]])["type"] as? String == "pong")
        let drained = Task { await server.server.drain() }
        #expect(try ws.receiveClose() == 1001)
        try ws.sendClose(code: 1001)
        await drained.value
        #expect(throws: (any Error).self) { try TestSocket(port: server.publicPort) }
    }

    /// A wake-up still queued when SIGTERM comes reaches the provider before the drain
    /// returns (and `main` exits): the token endpoint answers only after 3 s here.
    @Test func drain_sendsThePushesStillQueued_beforeItReturns() async throws {
        let fake = try await FakeFCM()
        defer { fake.stop() }
        fake.answerTokens(FakeFCM.Answer(status: 200, body: FakeFCM.Answer.token.body, delayMillis: 3_000))
        let server = try await TestServer(fake.serverEnvironment)
        let recipient = try Phone.online(server)
        #expect(try recipient.ws.privileged("update_tokens", token: recipient.token,
                                            extra: ["pushToken": "fcm-drain-1", "platform": "android"]).frameType
                    == "tokens_updated")
        recipient.ws.socket.close()
        let sender = try Phone.online(server)
        await Messaging.waitForAuthenticated(server, count: 1)
        try sender.sendAccepted(to: recipient.id)
        #expect(await eventually { fake.tokenRequests == 1 }, "the wake-up was queued")
        sender.ws.socket.close()
        await Messaging.waitForAuthenticated(server, count: 0)
        #expect(fake.sends.isEmpty)
        await server.server.drain()
        #expect(fake.sends.count == 1 && fake.sends.first?.contains("fcm-drain-1") == true, "\(fake.sends)")
    }

    @Test func drain_answers503DuringTheGrace_thenCloses1001WithAReconnectHint() async throws {
        let server = try await TestServer(["WHISPER_DRAIN_GRACE_SECONDS": "2"])
        let ws = try TestWebSocket(port: server.publicPort)
        #expect(await readyStatus(server.adminPort, becomes: 200))
        let start = ContinuousClock.now
        let drained = Task { await server.server.drain() }
        #expect(await readyStatus(server.adminPort, becomes: 503, within: 1))
        let down = try TestHTTP.get(port: server.adminPort, "/ready")
        #expect((down.json?["checks"] as? [String: String])?["draining"] == "fail")
        // The grace: the socket still serves while the load balancer notices (checked when the
        // ping surely left well inside the 2 s: a starved test may send it after the grace).
        let inGrace = ContinuousClock.now - start < .milliseconds(1_500)
        try ws.sendText(#"{"type":"ping","payload":{}}"#)
        var close: (UInt16?, String)?
        var ponged = false
        while close == nil {
            switch try ws.receiveFrame() {
            case .close(let code, let reason): close = (code, reason)
            case .text(let text): ponged = ponged || text.contains(#""type":"pong""#)
            default: break
            }
        }
        if inGrace { #expect(ponged, "no pong during the grace") }
        #expect(close?.0 == 1001)
        let hint = try JSONSerialization.jsonObject(with: Data((close?.1 ?? "").utf8)) as? [String: Any]
        #expect(hint?["reason"] as? String == "server_restarting")
        #expect((hint?["retryAfterMs"] as? Int).map { (0...1000).contains($0) } == true)
        try ws.sendClose(code: 1001)
        await drained.value
    }

    @Test func tlsListeners_serveHTTPAndWebSocket() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("whisper-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let cert = dir.appendingPathComponent("cert.pem").path, key = dir.appendingPathComponent("key.pem").path
        try await Subprocess.run("/usr/bin/openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
                             "-days", "1", "-subj", "/CN=127.0.0.1"])
        let server = try await TestServer(["WHISPER_TLS_CERT": cert, "WHISPER_TLS_KEY": key])
        defer { server.stop() }
        let socket = try TestSocket(port: server.adminPort, tls: true)
        try socket.send("GET /health HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        #expect(try TestHTTP.parse(socket.receiveUntilClosed()).status == 200)
        let ws = try TestWebSocket(port: server.publicPort, tls: true)
        #expect(try ws.request(["type": "ping", "payload": [:]])["type"] as? String == "pong")
    }
}
