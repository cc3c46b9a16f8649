import Foundation
import Testing
import WhisperTesting

/// `get_turn_credentials` against the real coturn that `scripts/test` starts with
/// `use-auth-secret`: what the relay issues allocates a relay there; a tampered or expired
/// credential is refused.
@Suite(.serialized) struct TurnCredentialsTests {
    /// The coturn of this test run: its port and shared secret (exported by scripts/test).
    static func coturn() throws -> (port: String, secret: String) {
        let environment = ProcessInfo.processInfo.environment
        guard let port = environment["WHISPER_TEST_TURN_PORT"], let secret = environment["WHISPER_TEST_TURN_SECRET"] else {
            throw TestSocket.Failure.io("WHISPER_TEST_TURN_PORT/SECRET are not set: run the suite through scripts/test")
        }
        return (port, secret)
    }

    /// A TURN allocation with `turnutils_uclient` (one client, one message through the relay).
    static func allocate(port: String, username: String, password: String) async -> Bool {
        (try? await Subprocess.run("/usr/bin/turnutils_uclient",
                             ["-y", "-n", "1", "-m", "1", "-u", username, "-w", password, "-p", port, "127.0.0.1"])) != nil
    }

    static func server(ttlSeconds: Int = 600) async throws -> TestServer {
        let turn = try coturn()
        return try await TestServer(["WHISPER_TURN_SECRET": turn.secret,
                                     "WHISPER_TURN_URLS": "turn:127.0.0.1:\(turn.port)?transport=udp,stun:127.0.0.1:\(turn.port)",
                                     "WHISPER_TURN_TTL_SECONDS": String(ttlSeconds)])
    }

    @Test func issuedCredentials_allocateOnCoturn_andTamperedOnesAreRefused() async throws {
        let turn = try Self.coturn()
        let server = try await Self.server()
        defer { server.stop() }
        let ws = try TestWebSocket(port: server.publicPort)
        let login = try ws.login(TestIdentity())
        let before = Int64(Date().timeIntervalSince1970)
        let reply = try ws.privileged("get_turn_credentials", token: login.sessionToken)
        #expect(reply.frameType == "turn_credentials")
        let payload = reply.payload
        let username = try #require(payload["username"] as? String)
        let credential = try #require(payload["credential"] as? String)
        #expect(payload["urls"] as? [String] == ["turn:127.0.0.1:\(turn.port)?transport=udp", "stun:127.0.0.1:\(turn.port)"])
        #expect(payload["ttl"] as? Int == 600)
        let parts = username.split(separator: ":", maxSplits: 1).map(String.init)
        #expect(parts.count == 2 && parts[1] == login.whisperId)
        let expiry = try #require(Int64(parts[0]))
        #expect(expiry >= before + 600 && expiry <= before + 605)

        #expect(await Self.allocate(port: turn.port, username: username, password: credential))
        // One character changed (a credential that starts with "A", one in 64, gets a "B").
        let wrong = (credential.first == "A" ? "B" : "A") + credential.dropFirst()
        #expect(await !Self.allocate(port: turn.port, username: username, password: wrong))
        #expect(await !Self.allocate(port: turn.port, username: "\(expiry):WSP-AAAA-AAAA-AAAA", password: credential))
    }

    @Test func expiredCredentials_areRefusedByCoturn() async throws {
        let turn = try Self.coturn()
        let server = try await Self.server(ttlSeconds: 1)
        defer { server.stop() }
        let ws = try TestWebSocket(port: server.publicPort)
        let login = try ws.login(TestIdentity())
        let payload = try ws.privileged("get_turn_credentials", token: login.sessionToken).payload
        let username = try #require(payload["username"] as? String)
        let credential = try #require(payload["credential"] as? String)
        try await Task.sleep(nanoseconds: 2_200_000_000)
        #expect(await !Self.allocate(port: turn.port, username: username, password: credential))
    }

    @Test func withoutASession_isNotRegistered_andExtraMembersAreInvalid_andTheSocketKeepsWorking() async throws {
        let server = try await Self.server()
        defer { server.stop() }
        let ws = try TestWebSocket(port: server.publicPort)
        #expect(try ws.privileged("get_turn_credentials", token: nil).errorCode == "NOT_REGISTERED")
        let login = try ws.login(TestIdentity())
        #expect(try ws.privileged("get_turn_credentials", token: login.sessionToken, extra: ["ttl": 5]).errorCode
                    == "INVALID_PAYLOAD")
        #expect(try ws.privileged("get_turn_credentials", token: login.sessionToken).frameType == "turn_credentials")
    }

    @Test func withoutTURNConfigured_isAnInternalError() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let ws = try TestWebSocket(port: server.publicPort)
        let login = try ws.login(TestIdentity())
        #expect(try ws.privileged("get_turn_credentials", token: login.sessionToken).errorCode == "INTERNAL_ERROR")
    }

    @Test func callRateLimit_refusesCredentialFloods() async throws {
        let turn = try Self.coturn()
        let server = try await TestServer(["WHISPER_TURN_SECRET": turn.secret, "WHISPER_TURN_URLS": "stun:127.0.0.1",
                                           "WHISPER_RATE_CALL": "2/60"])
        defer { server.stop() }
        let ws = try TestWebSocket(port: server.publicPort)
        let login = try ws.login(TestIdentity())
        for _ in 0..<2 {
            #expect(try ws.privileged("get_turn_credentials", token: login.sessionToken).frameType == "turn_credentials")
        }
        let refused = try ws.privileged("get_turn_credentials", token: login.sessionToken)
        #expect(refused.errorCode == "RATE_LIMITED")
        #expect((refused.payload["retryAfterMs"] as? Int ?? 0) > 0)
    }
}
