#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import Foundation
import Testing
import WhisperTesting

/// Per-IP defaults that serve mobile networks (docs/operations.md "Hostile clients"): a carrier's
/// NAT puts thousands of phones behind one address, so the defence against one abusive address
/// is the rate of its new connections, not how many it holds.
@Suite struct PeerConnectionRateTests {
    static let upgradeRequest = Array(("GET /ws HTTP/1.1\r\nHost: t\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n").utf8)

    /// Each socket here has two ends in this process (the client's and the in-process server's).
    private static func ensureOpenFiles(_ needed: Int) throws {
        var limit = rlimit()
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        guard getrlimit(resource, &limit) == 0 else { return }
        if limit.rlim_cur < rlim_t(needed), limit.rlim_max >= rlim_t(needed) {
            limit.rlim_cur = rlim_t(needed)
            _ = setrlimit(resource, &limit)
        }
        _ = getrlimit(resource, &limit)
        try #require(limit.rlim_cur >= rlim_t(needed), "RLIMIT_NOFILE \(limit.rlim_cur) is below the \(needed) this test needs")
    }

    /// The answer's status line, or nil when the server closed without one (refused at accept).
    private static func statusLine(_ socket: TestSocket) -> String? {
        while socket.buffered.firstRange(of: [13, 10]) == nil {
            do { try socket.receiveMore() } catch { return nil }
        }
        return String(decoding: socket.buffered.prefix(12), as: UTF8.self)
    }

    @Test func aCarriersReconnectWave_of3000SocketsFrom4Addresses_isUpgradedWholeByTheDefaults() async throws {
        let sockets = 3000
        try Self.ensureOpenFiles(2 * sockets + 1024)
        // The defaults: no per-IP setting overridden.
        let server = try await TestServer()
        defer { server.stop() }
        let started = ContinuousClock.now
        var clients: [TestSocket] = []
        clients.reserveCapacity(sockets)
        // Every socket is connected before any request is sent: the server sees them all at once.
        for i in 0..<sockets {
            clients.append(try TestSocket(port: server.publicPort, source: "127.0.0.\(2 + i % 4)", timeoutSeconds: 30))
        }
        for client in clients { try client.send(Self.upgradeRequest) }
        var upgraded = 0
        for client in clients where Self.statusLine(client) == "HTTP/1.1 101" { upgraded += 1 }
        let elapsed = ContinuousClock.now - started
        #expect(upgraded == sockets)
        #expect(elapsed < .seconds(30), "took \(elapsed)")
        let metrics = try TestHTTP.get(port: server.adminPort, "/metrics").text
        #expect(metrics.contains(#"whisper_connections_refused_total{reason="per_ip_rate"} 0"#))
        #expect(metrics.contains(#"whisper_connections_refused_total{reason="per_ip"} 0"#))
        for client in clients { client.close() }
    }

    @Test func anAddressOpeningFarFasterThanItsRate_isSlowed_whileABystanderIsServed() async throws {
        let server = try await TestServer(["WHISPER_CONNECTION_RATE_PER_IP": "20", "WHISPER_CONNECTION_BURST_PER_IP": "10"])
        defer { server.stop() }
        let bystander = try TestWebSocket(socket: TestSocket(port: server.publicPort, source: "127.0.0.3"))
        let started = ContinuousClock.now
        var served = 0, refused = 0, bystanderPongs = 0
        // About 1.5 s of an address opening sockets as fast as it can, one request each.
        while ContinuousClock.now - started < .milliseconds(1500) {
            let socket = try TestSocket(port: server.publicPort, source: "127.0.0.2", timeoutSeconds: 5)
            try? socket.send("GET /health HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
            if Self.statusLine(socket) == "HTTP/1.1 200" { served += 1 } else { refused += 1 }
            if (served + refused) % 50 == 0,
               try bystander.request(["type": "ping", "requestId": "p", "payload": [String: Any]()])["type"] as? String == "pong" {
                bystanderPongs += 1
            }
        }
        let elapsed = (ContinuousClock.now - started).components
        let seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
        // The burst, then 20/s: never more, and the abuser keeps getting some through (slowed, not banned).
        #expect(served <= 10 + Int(20 * seconds) + 2, "served \(served) in \(seconds) s")
        #expect(served > 10, "the bucket refills: slowed, not banned")
        #expect(refused > 3 * served, "opened \(served + refused), most of them refused")
        #expect(bystanderPongs > 0)
        let metrics = try TestHTTP.get(port: server.adminPort, "/metrics").text
        #expect(metrics.contains(#"whisper_connections_refused_total{reason="per_ip_rate"} \#(refused)"#))
        // The bystander still opens new connections meanwhile.
        let late = try TestSocket(port: server.publicPort, source: "127.0.0.4", timeoutSeconds: 5)
        try late.send("GET /health HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(Self.statusLine(late) == "HTTP/1.1 200")
        bystander.socket.close()
    }
}
