import Foundation
import Testing
import WhisperTesting

/// `PUT | GET | DELETE /backup/contacts` over real HTTP against real PostgreSQL and Redis.
@Suite(.serialized) struct ContactsBackupTests {
    static let cap = 5_000_000

    static func call(_ server: TestServer, _ method: String, token: String?, body: String? = nil,
                     contentLength: Int? = nil) throws -> TestHTTPResponse {
        var head = "\(method) /backup/contacts HTTP/1.1\r\nHost: t\r\nConnection: close\r\n"
        if let token { head += "Authorization: Bearer \(token)\r\n" }
        if let body {
            head += "Content-Type: application/json\r\nContent-Length: \(contentLength ?? body.utf8.count)\r\n"
        }
        return try TestHTTP.request(port: server.publicPort, head + "\r\n" + (contentLength == nil ? body ?? "" : ""))
    }

    static func upload(nonceBytes: Int = 24, ciphertextBytes: Int, extra: String = "") -> String {
        let nonce = Data((0..<nonceBytes).map { UInt8($0) }).base64EncodedString()
        let ciphertext = Data(repeating: 0xA5, count: ciphertextBytes).base64EncodedString()
        return #"{"nonce":"\#(nonce)","ciphertext":"\#(ciphertext)","cryptoVersion":1,"protocolVersion":1\#(extra)}"#
    }

    static func code(_ reply: TestHTTPResponse) -> String? {
        (reply.json?["error"] as? [String: Any])?["code"] as? String
    }

    @Test func backup_roundTrips_isTheOwnersOnly_andDeletes() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let alice = try Phone.online(server), bob = try Phone.online(server)
        #expect(try Self.call(server, "GET", token: alice.token).status == 404)
        let before = TestMessage.nowMillis()
        let put = try Self.call(server, "PUT", token: alice.token, body: Self.upload(ciphertextBytes: 300))
        #expect(put.status == 200, "\(put.text)")
        #expect(put.json?["success"] as? Bool == true)
        let updatedAt = try #require((put.json?["updatedAt"] as? NSNumber)?.int64Value)
        #expect(abs(updatedAt - before) < 60_000)
        let got = try Self.call(server, "GET", token: alice.token)
        #expect(got.status == 200)
        #expect(got.json?["nonce"] as? String == Data((0..<24).map { UInt8($0) }).base64EncodedString())
        #expect(got.json?["ciphertext"] as? String == Data(repeating: 0xA5, count: 300).base64EncodedString())
        #expect((got.json?["updatedAt"] as? NSNumber)?.int64Value == updatedAt)
        // Another identity sees only its own (none); a second upload replaces the first.
        #expect(try Self.call(server, "GET", token: bob.token).status == 404)
        #expect(try Self.call(server, "PUT", token: alice.token, body: Self.upload(ciphertextBytes: 17)).status == 200)
        #expect(try Self.call(server, "GET", token: alice.token).json?["ciphertext"] as? String
                    == Data(repeating: 0xA5, count: 17).base64EncodedString())
        #expect(try Self.call(server, "DELETE", token: alice.token).status == 204)
        #expect(try Self.call(server, "GET", token: alice.token).status == 404)
        #expect(try Self.call(server, "DELETE", token: alice.token).status == 404)
    }

    @Test func blobAtTheCap_isStored_andOneByteMoreIs413() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let alice = try Phone.online(server)
        let atCap = try Self.call(server, "PUT", token: alice.token, body: Self.upload(ciphertextBytes: Self.cap))
        #expect(atCap.status == 200, "\(atCap.text)")
        let over = try Self.call(server, "PUT", token: alice.token, body: Self.upload(ciphertextBytes: Self.cap + 1))
        #expect(over.status == 413, "\(over.text)")
        // Decided from Content-Length alone, before any body byte is sent.
        let declared = try Self.call(server, "PUT", token: alice.token, body: "", contentLength: 7_000_000)
        #expect(declared.status == 413)
        // One code for "too large", however it was found (docs/protocol.md "HTTP").
        for response in [over, declared] {
            #expect((response.json?["error"] as? [String: Any])?["code"] as? String == "PAYLOAD_TOO_LARGE", "\(response.text)")
        }
        // The largest response the server sends: a full backup, in one piece.
        let full = try Self.call(server, "GET", token: alice.token)
        #expect(full.status == 200)
        #expect(full.json?["ciphertext"] as? String == Data(repeating: 0xA5, count: Self.cap).base64EncodedString())
    }

    @Test func badBodies_are400_unauthenticatedIs401_andFloodsAre429() async throws {
        let server = try await TestServer(["WHISPER_RATE_BACKUP": "8/60"])
        defer { server.stop() }
        let alice = try Phone.online(server)
        for body in [Self.upload(nonceBytes: 23, ciphertextBytes: 10), Self.upload(ciphertextBytes: 0),
                     Self.upload(ciphertextBytes: 10, extra: #","owner":"me""#),
                     #"{"nonce":"AAAA","ciphertext":"%%%","cryptoVersion":1,"protocolVersion":1}"#,
                     Self.upload(ciphertextBytes: 10).replacingOccurrences(of: #""cryptoVersion":1"#, with: #""cryptoVersion":2"#),
                     "not json"] {
            let reply = try Self.call(server, "PUT", token: alice.token, body: body)
            #expect(reply.status == 400, "\(body.prefix(80)): \(reply.text)")
            #expect(Self.code(reply) == "INVALID_PAYLOAD")
        }
        #expect(try Self.call(server, "GET", token: nil).status == 401)
        #expect(try Self.call(server, "PUT", token: nil, body: Self.upload(ciphertextBytes: 10)).status == 401)
        #expect(try Self.call(server, "GET", token: Data(repeating: 3, count: 32).base64EncodedString()).status == 401)
        var statuses: [Int] = []
        for _ in 0..<9 { statuses.append(try Self.call(server, "GET", token: alice.token).status) }
        #expect(statuses.prefix(8).allSatisfy { $0 == 404 }, "\(statuses)")
        let limited = try Self.call(server, "GET", token: alice.token)
        #expect(limited.status == 429)
        #expect(Self.code(limited) == "RATE_LIMITED")
        #expect(Int(limited.headers.first { $0.key.lowercased() == "retry-after" }?.value ?? "") ?? 0 >= 1)
    }
}
