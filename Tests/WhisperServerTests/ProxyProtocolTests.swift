import Foundation
import Testing
import WhisperTesting

/// `WHISPER_PROXY_PROTOCOL` (docs/operations.md "Behind a load balancer"): behind a trusted
/// balancer the PROXY v2 header's address is the client, over real sockets. The test client at
/// 127.0.0.1 plays the balancer; 127.0.0.2 is a direct client outside the trusted CIDR.
@Suite struct ProxyProtocolTests {
    static let trusted = ["WHISPER_PROXY_PROTOCOL": "1", "WHISPER_PROXY_PROTOCOL_SOURCES": "127.0.0.1/32, ::1/128",
                          "WHISPER_MAX_CONNECTIONS_PER_IP": "1"]

    /// A PROXY v2 header for a TCP/IPv4 client (haproxy doc/proxy-protocol.txt §2.2).
    static func header(client: [UInt8], port: UInt16 = 40_000, command: UInt8 = 0x21, family: UInt8 = 0x11) -> [UInt8] {
        let block = client + [127, 0, 0, 1] + [UInt8(port >> 8), UInt8(port & 0xFF), 0x1F, 0x90]
        return [0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A, command, family, 0, UInt8(block.count)]
            + block
    }

    static let healthRequest = Array("GET /health HTTP/1.1\r\nHost: t\r\n\r\n".utf8)

    private func refusals(_ server: TestServer, _ reason: String, tls: Bool = false) throws -> Int? {
        let admin = try TestSocket(port: server.adminPort, tls: tls)
        try admin.send("GET /metrics HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        let text = try TestHTTP.parse(admin.receiveUntilClosed()).text
        let prefix = #"whisper_connections_refused_total{reason="\#(reason)"} "#
        return text.split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap { Int($0.dropFirst(prefix.count)) }
    }

    @Test func theHeadersAddress_isTheClient_forThePerIPCap() async throws {
        let server = try await TestServer(Self.trusted)
        defer { server.stop() }
        // Two clients behind one balancer address, each under a cap of one connection per IP.
        let first = try TestWebSocket(socket: TestSocket(port: server.publicPort), preamble: Self.header(client: [198, 51, 100, 1]))
        let second = try TestWebSocket(socket: TestSocket(port: server.publicPort), preamble: Self.header(client: [198, 51, 100, 2]))
        // The header in a write of its own, the upgrade after it.
        let again = try TestSocket(port: server.publicPort, timeoutSeconds: 5)
        try again.send(Self.header(client: [198, 51, 100, 1], port: 40_001))
        #expect(try again.receiveUntilClosed().isEmpty, "198.51.100.1 already holds its one connection")
        #expect(try refusals(server, "per_ip") == 1)
        for socket in [first, second] {
            #expect(try socket.request(["type": "ping", "requestId": "p", "payload": [String: Any]()])["type"] as? String == "pong")
        }
        first.socket.close()
        #expect(await eventually {
            let socket = try? TestSocket(port: server.publicPort, timeoutSeconds: 5)
            try? socket?.send(Self.header(client: [198, 51, 100, 1], port: 40_002) + Self.healthRequest)
            _ = try? socket?.receiveMore()
            return socket.map { String(decoding: $0.buffered.prefix(15), as: UTF8.self) } == "HTTP/1.1 200 OK"
        }, "the address is released under the header's address when its connection closes")
        second.socket.close()
    }

    @Test func localCommand_keepsTheBalancersAddress_asHealthChecksUse() async throws {
        let server = try await TestServer(Self.trusted)
        defer { server.stop() }
        let proxied = try TestWebSocket(socket: TestSocket(port: server.publicPort), preamble: Self.header(client: [198, 51, 100, 9]))
        for family: UInt8 in [0x00, 0x11] {  // LOCAL with no addresses, and with addresses to ignore
            let check = try TestSocket(port: server.publicPort, timeoutSeconds: 5)
            let local = family == 0 ? Array(Self.header(client: [], command: 0x20, family: 0).prefix(14)) + [0, 0]
                                    : Self.header(client: [198, 51, 100, 9], command: 0x20)
            try check.send(local + Self.healthRequest)
            try check.receiveMore()
            #expect(String(decoding: check.buffered.prefix(15), as: UTF8.self) == "HTTP/1.1 200 OK",
                    "counted under 127.0.0.1, not under the proxied client holding its one connection")
            check.close()
            #expect(await eventually { (try? refusals(server, "per_ip")) == 0 })
        }
        proxied.socket.close()
    }

    @Test func anUntrustedSourcesHeader_isNeverParsed_andFailsAsABadRequest() async throws {
        let server = try await TestServer(Self.trusted)
        defer { server.stop() }
        // Each connection opens the moment the last one's close is read: under a cap of one per
        // address, the closed connection's slot is free by then.
        for round in 1...50 {
            let forged = try TestSocket(port: server.publicPort, source: "127.0.0.2", timeoutSeconds: 5)
            try forged.send(Self.header(client: [198, 51, 100, 1]) + Self.healthRequest)
            let answer = try forged.receiveUntilClosed()
            #expect(String(decoding: answer.prefix(12), as: UTF8.self) == "HTTP/1.1 400", "round \(round)")
        }
        // The same address without a header is an ordinary direct client.
        let direct = try TestWebSocket(socket: TestSocket(port: server.publicPort, source: "127.0.0.2"))
        #expect(try direct.request(["type": "ping", "requestId": "p", "payload": [String: Any]()])["type"] as? String == "pong")
        direct.socket.close()
    }

    @Test func badHeaders_closeOnlyTheirSocket_andAreCountedByReason() async throws {
        let server = try await TestServer(Self.trusted.merging(["WHISPER_HTTP_REQUEST_TIMEOUT_SECONDS": "1"]) { $1 })
        defer { server.stop() }
        let bystander = try TestWebSocket(socket: TestSocket(port: server.publicPort), preamble: Self.header(client: [198, 51, 100, 7]))

        let garbage = try TestSocket(port: server.publicPort, timeoutSeconds: 5)
        try garbage.send(Self.healthRequest)  // a balancer that forgot send-proxy-v2
        #expect(try garbage.receiveUntilClosed().isEmpty, "closed without an answer")

        let oversize = try TestSocket(port: server.publicPort, timeoutSeconds: 5)
        var tooLong = Self.header(client: [198, 51, 100, 8])
        tooLong[14] = 0xFF
        try oversize.send(Array(tooLong.prefix(16)))
        #expect(try oversize.receiveUntilClosed().isEmpty)

        let truncated = try TestSocket(port: server.publicPort, timeoutSeconds: 5)
        try truncated.send(Array(Self.header(client: [198, 51, 100, 8]).prefix(20)))
        truncated.close()

        let slow = try TestSocket(port: server.publicPort, timeoutSeconds: 5)
        try slow.send(Array(Self.header(client: [198, 51, 100, 8]).prefix(5)))
        #expect(try slow.receiveUntilClosed().isEmpty, "closed at the request timeout (slowloris)")

        #expect(try refusals(server, "proxy_header_invalid") == 1)
        #expect(try refusals(server, "proxy_header_too_long") == 1)
        #expect(await eventually { (try? refusals(server, "proxy_header_truncated")) == 1 })
        #expect(try refusals(server, "proxy_header_timeout") == 1)
        #expect(try bystander.request(["type": "ping", "requestId": "p", "payload": [String: Any]()])["type"] as? String == "pong")
        bystander.socket.close()
    }

    @Test func theHeader_precedesTLS_andTheHandshakeFollowsIt() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("whisper-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let cert = dir.appendingPathComponent("cert.pem").path, key = dir.appendingPathComponent("key.pem").path
        try await Subprocess.run("/usr/bin/openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
                                                      "-days", "1", "-subj", "/CN=127.0.0.1"])
        let server = try await TestServer(Self.trusted.merging(["WHISPER_TLS_CERT": cert, "WHISPER_TLS_KEY": key]) { $1 })
        defer { server.stop() }
        let socket = try TestSocket(port: server.publicPort, preamble: Self.header(client: [198, 51, 100, 3]), tls: true)
        let proxied = try TestWebSocket(socket: socket)
        #expect(try proxied.request(["type": "ping", "requestId": "p", "payload": [String: Any]()])["type"] as? String == "pong")
        // The same client again: refused once its header is read, so no TLS handshake follows.
        #expect(throws: TestSocket.Failure.self) {
            try TestSocket(port: server.publicPort, preamble: Self.header(client: [198, 51, 100, 3], port: 40_003), tls: true)
        }
        #expect(try refusals(server, "per_ip", tls: true) == 1)
        proxied.socket.close()
    }
}
