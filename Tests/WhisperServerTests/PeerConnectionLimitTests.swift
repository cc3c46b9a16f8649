import Testing
import WhisperTesting

/// `WHISPER_MAX_CONNECTIONS_PER_IP` (docs/operations.md "Hostile clients"): one address cannot
/// hold more than its share of the node's connections, across all loops.
@Suite struct PeerConnectionLimitTests {
    @Test func connectionPastThePerIPLimit_isClosedAtOnceAndCounted_whileTheAdminListenerServes() async throws {
        let server = try await TestServer(["WHISPER_MAX_CONNECTIONS_PER_IP": "3", "WHISPER_THREADS": "2"])
        defer { server.stop() }
        // Each held connection answers a request first, so it is counted before the next is made
        // (the two loops accept independently).
        var held: [TestSocket] = []
        for _ in 0..<3 {
            let socket = try TestSocket(port: server.publicPort, timeoutSeconds: 5)
            try socket.send("GET /health HTTP/1.1\r\nHost: t\r\n\r\n")
            try socket.receiveMore()
            #expect(String(decoding: socket.buffered.prefix(15), as: UTF8.self) == "HTTP/1.1 200 OK")
            held.append(socket)
        }
        let refused = try TestSocket(port: server.publicPort, timeoutSeconds: 5)
        #expect(try refused.receiveUntilClosed().isEmpty, "closed right after accept, nothing sent")
        let metrics = try TestHTTP.get(port: server.adminPort, "/metrics")
        #expect(metrics.status == 200, "the admin listener does not count against the limit")
        #expect(metrics.text.contains(#"whisper_connections_refused_total{reason="per_ip"} 1"#))

        held[0].close()
        #expect(await eventually { (try? TestHTTP.get(port: server.publicPort, "/health").status) == 200 })
        for socket in held { socket.close() }
    }
}
