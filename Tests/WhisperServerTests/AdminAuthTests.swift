import Foundation
import Testing
import WhisperTesting

/// The admin token is checked from the request head, before anything else (docs/protocol.md
/// "Admin API"): before the body is read, its size checked or the path routed.
@Suite(.serialized) struct AdminAuthTests {
    /// A head declaring `contentLength` body bytes and sending none of them, without
    /// `Connection: close`: only the server can end the exchange.
    static func head(_ method: String, _ path: String, token: String?, contentLength: Int) -> String {
        "\(method) \(path) HTTP/1.1\r\nHost: t\r\n" + (token.map { "Authorization: Bearer \($0)\r\n" } ?? "")
            + "Content-Type: application/json\r\nContent-Length: \(contentLength)\r\n\r\n"
    }

    @Test func unauthenticatedRequest_gets401_withoutItsOversizeBodyBeingRead_andIsClosed() async throws {
        let server = try await Admin.server()
        defer { server.stop() }
        for token in [nil, "wrong"] {
            for (method, path) in [("GET", "/admin/stats"), ("POST", "/admin/ban"), ("POST", "/admin/attachments/gc/run")] {
                let reply = try TestHTTP.request(port: server.adminPort,
                                                 Self.head(method, path, token: token, contentLength: 100_000_000))
                #expect(reply.status == 401 && Admin.code(reply) == "AUTH_FAILED", "\(path) \(token ?? "none"): \(reply.text)")
                #expect(reply.headers["connection"]?.lowercased() == "close")
            }
        }
        // With the token, the body cap is what refuses it.
        let authorized = try TestHTTP.request(port: server.adminPort,
                                              Self.head("POST", "/admin/ban", token: Admin.token, contentLength: 100_000_000))
        #expect(authorized.status == 413 && Admin.code(authorized) == "PAYLOAD_TOO_LARGE", "\(authorized.text)")
    }

    @Test func unknownAdminPath_getsTheSame401_asAKnownOne() async throws {
        let server = try await Admin.server()
        defer { server.stop() }
        let known = try Admin.call(server.adminPort, "GET", "/admin/stats", token: "wrong")
        #expect(known.status == 401)
        let probes: [(String, String, String?)] = [("GET", "/admin/nope", nil), ("GET", "/admin", nil),
                                                   ("DELETE", "/admin/stats", nil), ("POST", "/admin/users/x/ban", "{}"),
                                                   ("PUT", "/admin/attachments/gc/run", #"{"a":1}"#)]
        for (method, path, body) in probes {
            for token in [nil, "wrong"] {
                let reply = try Admin.call(server.adminPort, method, path, body: body, token: token)
                #expect(reply.status == 401 && reply.text == known.text, "\(method) \(path): \(reply.status) \(reply.text)")
            }
        }
        // With the token the router answers as before.
        #expect(try Admin.call(server, "GET", "/admin/nope").status == 404)
        #expect(try Admin.call(server, "DELETE", "/admin/stats").status == 405)
        // Outside /admin nothing changes: metrics need no token, an unknown path is 404.
        #expect(try TestHTTP.get(port: server.adminPort, "/metrics").status == 200)
        #expect(try TestHTTP.get(port: server.adminPort, "/administrator").status == 404)
    }

    @Test func adminPaths_answer503_beforeAnythingElse_whenNoTokenIsConfigured() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        for (method, path) in [("GET", "/admin/nope"), ("POST", "/admin/ban")] {
            let reply = try TestHTTP.request(port: server.adminPort, Self.head(method, path, token: nil, contentLength: 100_000_000))
            #expect(reply.status == 503 && Admin.code(reply) == "ADMIN_DISABLED", "\(path): \(reply.text)")
        }
    }

    @Test func refusedBodilessRequest_keepsTheConnection() async throws {
        let server = try await Admin.server()
        defer { server.stop() }
        let socket = try TestSocket(port: server.adminPort)
        try socket.send("GET /admin/stats HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer wrong\r\n\r\n"
            + "GET /health HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        let text = String(decoding: try socket.receiveUntilClosed(), as: UTF8.self)
        let statuses = text.components(separatedBy: "HTTP/1.1 ").dropFirst().map { $0.prefix(3) }
        #expect(statuses == ["401", "200"], "\(text)")
    }
}
