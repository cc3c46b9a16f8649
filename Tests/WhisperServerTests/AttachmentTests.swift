import Foundation
import Testing
import WhisperTesting

/// `POST /attachments/presign` and `GET /attachments/{objectKey}/download` over real HTTP
/// against real PostgreSQL, Redis and the LocalStack S3 that `scripts/test` starts with SigV4
/// checking on: the presigned URLs are used against the store, which refuses tampered and
/// expired ones.
@Suite(.serialized) struct AttachmentTests {
    /// A server pointed at this run's LocalStack bucket (credentials `test`/`test`, path-style).
    static func server(_ overrides: [String: String] = [:]) async throws -> TestServer {
        var environment = ["WHISPER_S3_ENDPOINT": try TestEnvironment.s3Endpoint,
                           "WHISPER_S3_BUCKET": try TestEnvironment.s3Bucket,
                           "WHISPER_S3_ACCESS_KEY": "test", "WHISPER_S3_SECRET_KEY": "test",
                           "WHISPER_S3_PATH_STYLE": "true"]
        environment.merge(overrides) { $1 }
        return try await TestServer(environment)
    }

    static func presign(_ server: TestServer, token: String?, body: String) throws -> TestHTTPResponse {
        var head = "POST /attachments/presign HTTP/1.1\r\nHost: t\r\nConnection: close\r\n"
        if let token { head += "Authorization: Bearer \(token)\r\n" }
        head += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n"
        return try TestHTTP.request(port: server.publicPort, head + body)
    }

    static func presignBody(contentType: String = "image/jpeg", sizeBytes: Int64) -> String {
        #"{"contentType":"\#(contentType)","sizeBytes":\#(sizeBytes),"purpose":"message_attachment"}"#
    }

    static func download(_ server: TestServer, objectKey: String, token: String) throws -> TestHTTPResponse {
        try TestHTTP.get(port: server.publicPort, "/attachments/\(objectKey)/download",
                         headers: ["Authorization: Bearer \(token)"])
    }

    static func code(_ reply: TestHTTPResponse) -> String? {
        (reply.json?["error"] as? [String: Any])?["code"] as? String
    }

    /// Presigns `bytes.count` bytes of `image/jpeg` and PUTs them with the signed headers.
    static func upload(_ server: TestServer, token: String, bytes: [UInt8]) throws -> String {
        let reply = try presign(server, token: token, body: presignBody(sizeBytes: Int64(bytes.count)))
        #expect(reply.status == 200, "\(reply.text)")
        let url = try #require(reply.json?["uploadUrl"] as? String)
        let headers = try #require(reply.json?["headers"] as? [String: String])
        let put = try TestHTTP.request("PUT", url: url, headers: headers, body: bytes)
        #expect(put.status == 200, "\(put.text)")
        return try #require(reply.json?["objectKey"] as? String)
    }

    static func pointer(_ objectKey: String, size: Int) -> [String: Any] {
        let nonce = Data(repeating: 7, count: 24).base64EncodedString()
        return ["objectKey": objectKey, "contentType": "image/jpeg", "ciphertextSize": size, "fileNonce": nonce,
                "fileKeyBox": ["nonce": nonce, "ciphertext": Data(repeating: 9, count: 48).base64EncodedString()]]
    }

    @Test func presign_answersASigV4PresignedPut_andTheStoreAcceptsTheUpload() async throws {
        let server = try await Self.server()
        defer { server.stop() }
        let alice = try Phone.online(server)
        let before = TestMessage.nowMillis()
        let reply = try Self.presign(server, token: alice.token, body: Self.presignBody(sizeBytes: 11))
        #expect(reply.status == 200, "\(reply.text)")
        let json = try #require(reply.json)
        #expect(Set(json.keys) == ["uploadUrl", "objectKey", "expiresAt", "headers"])
        let objectKey = try #require(json["objectKey"] as? String)
        #expect(objectKey.range(of: #"^att/\d{4}/\d{2}/[0-9a-f-]{36}\.bin$"#, options: .regularExpression) != nil, "\(objectKey)")
        let expiresAt = try #require((json["expiresAt"] as? NSNumber)?.int64Value)
        #expect(abs(expiresAt - before - 900_000) < 60_000)
        #expect(json["headers"] as? [String: String] == ["Content-Type": "image/jpeg", "Content-Length": "11"])
        let url = try #require(json["uploadUrl"] as? String)
        #expect(url.hasPrefix(try TestEnvironment.s3Endpoint + "/" + TestEnvironment.s3Bucket + "/" + objectKey + "?"))
        for parameter in ["X-Amz-Algorithm=AWS4-HMAC-SHA256", "X-Amz-Credential=test%2F", "X-Amz-Date=", "X-Amz-Expires=900",
                          "X-Amz-SignedHeaders=content-length%3Bcontent-type%3Bhost", "X-Amz-Signature="] {
            #expect(url.contains(parameter), "\(parameter) in \(url)")
        }
        let put = try TestHTTP.request("PUT", url: url, headers: ["Content-Type": "image/jpeg", "Content-Length": "11"],
                                       body: Array("hello bytes".utf8))
        #expect(put.status == 200, "\(put.text)")
    }

    @Test func presignedPut_isRefusedByTheStore_whenTamperedOrResized() async throws {
        let server = try await Self.server()
        defer { server.stop() }
        let alice = try Phone.online(server)
        let reply = try Self.presign(server, token: alice.token, body: Self.presignBody(sizeBytes: 4))
        let url = try #require(reply.json?["uploadUrl"] as? String)
        let headers = ["Content-Type": "image/jpeg", "Content-Length": "4"]
        // One hex digit of the signature changed.
        let last = url.last == "0" ? "1" : "0"
        let tampered = try TestHTTP.request("PUT", url: String(url.dropLast()) + last, headers: headers, body: [1, 2, 3, 4])
        #expect(tampered.status == 403, "\(tampered.text)")
        // Another object key under the same signature.
        let otherKey = url.replacingOccurrences(of: ".bin?", with: "x.bin?")
        #expect(try TestHTTP.request("PUT", url: otherKey, headers: headers, body: [1, 2, 3, 4]).status == 403)
        // More bytes than declared: Content-Length is signed.
        let bigger = try TestHTTP.request("PUT", url: url, headers: ["Content-Type": "image/jpeg", "Content-Length": "5"],
                                          body: [1, 2, 3, 4, 5])
        #expect(bigger.status == 403, "\(bigger.text)")
        // Another content type: Content-Type is signed.
        let retyped = try TestHTTP.request("PUT", url: url, headers: ["Content-Type": "text/html", "Content-Length": "4"],
                                           body: [1, 2, 3, 4])
        #expect(retyped.status == 403, "\(retyped.text)")
        #expect(try TestHTTP.request("PUT", url: url, headers: headers, body: [1, 2, 3, 4]).status == 200)
    }

    @Test func presignedPut_isRefusedByTheStore_afterItExpires() async throws {
        let server = try await Self.server(["WHISPER_ATTACHMENT_UPLOAD_URL_TTL_SECONDS": "1"])
        defer { server.stop() }
        let alice = try Phone.online(server)
        let reply = try Self.presign(server, token: alice.token, body: Self.presignBody(sizeBytes: 4))
        let url = try #require(reply.json?["uploadUrl"] as? String)
        #expect(url.contains("X-Amz-Expires=1&"))
        try await Task.sleep(for: .milliseconds(2_500))
        let late = try TestHTTP.request("PUT", url: url, headers: ["Content-Type": "image/jpeg", "Content-Length": "4"],
                                        body: [1, 2, 3, 4])
        #expect(late.status == 403, "\(late.text)")
    }

    @Test func download_isForTheUploaderAndRecipients_andNotFoundForAStranger() async throws {
        let server = try await Self.server()
        defer { server.stop() }
        let alice = try Phone.online(server), bob = try Phone.online(server), eve = try Phone.online(server)
        let bytes = Array("encrypted file bytes".utf8)
        let objectKey = try Self.upload(server, token: alice.token, bytes: bytes)

        // Before any message, only the uploader may download.
        #expect(try Self.download(server, objectKey: objectKey, token: bob.token).status == 404)
        let message = TestMessage(from: alice.id, to: bob.id, msgType: "image",
                                  extra: ["attachment": Self.pointer(objectKey, size: bytes.count)])
        #expect(try alice.send(message).frameType == "message_accepted")
        #expect(try bob.ws.receiveJSON().frameType == "message_received")

        for reader in [alice, bob] {
            // Recording happens after the ack: wait for it rather than assume it.
            #expect(await eventually { (try? Self.download(server, objectKey: objectKey, token: reader.token).status) == 200 })
            let reply = try Self.download(server, objectKey: objectKey, token: reader.token)
            #expect(reply.status == 200, "\(reply.text)")
            #expect(Set(reply.json?.keys ?? [:].keys) == ["downloadUrl", "expiresAt"])
            let url = try #require(reply.json?["downloadUrl"] as? String)
            let got = try TestHTTP.request("GET", url: url)
            #expect(got.status == 200, "\(got.text)")
            #expect(got.body == bytes)
        }
        // The %2F form names the same object.
        let encoded = objectKey.replacingOccurrences(of: "/", with: "%2F")
        #expect(try Self.download(server, objectKey: encoded, token: bob.token).status == 200)
        // A stranger, and an unknown key, get the same 404.
        let stranger = try Self.download(server, objectKey: objectKey, token: eve.token)
        #expect(stranger.status == 404)
        #expect(Self.code(stranger) == "NOT_FOUND")
        let unknown = try Self.download(server, objectKey: "att/2026/01/\(UUID().uuidString.lowercased()).bin", token: alice.token)
        #expect(unknown.status == 404)
        #expect(unknown.text == stranger.text, "same body: existence is not revealed")
    }

    @Test func download_isNotGranted_whenTheSenderDidNotUploadTheObject() async throws {
        let server = try await Self.server()
        defer { server.stop() }
        let alice = try Phone.online(server), bob = try Phone.online(server), eve = try Phone.online(server)
        let objectKey = try Self.upload(server, token: alice.token, bytes: [1, 2, 3])
        // Eve learns the key and sends it to herself via Bob: no right is granted by her message.
        let message = TestMessage(from: eve.id, to: bob.id, msgType: "image", extra: ["attachment": Self.pointer(objectKey, size: 3)])
        #expect(try eve.send(message).frameType == "message_accepted")
        #expect(try bob.ws.receiveJSON().frameType == "message_received")
        // A later message from the uploader proves the recording path has run for this pair.
        let proof = TestMessage(from: alice.id, to: eve.id, msgType: "image", extra: ["attachment": Self.pointer(objectKey, size: 3)])
        #expect(try alice.send(proof).frameType == "message_accepted")
        #expect(await eventually { (try? Self.download(server, objectKey: objectKey, token: eve.token).status) == 200 })
        #expect(try Self.download(server, objectKey: objectKey, token: bob.token).status == 404)
    }

    @Test func download_isGrantedToGroupRecipients() async throws {
        let server = try await Self.server()
        defer { server.stop() }
        let alice = try Phone.online(server), bob = try Phone.online(server)
        let groupId = try alice.createdGroup(members: [bob.id])
        try bob.expectGroupEvent("created", groupId: groupId)
        let objectKey = try Self.upload(server, token: alice.token, bytes: [5, 6, 7])
        var payload = alice.groupMessage(groupId, to: bob.id)
        payload["attachment"] = Self.pointer(objectKey, size: 3)
        let reply = try alice.groupSend(payload)
        #expect(reply.frameType == "message_accepted", "\(reply)")
        #expect(await eventually { (try? Self.download(server, objectKey: objectKey, token: bob.token).status) == 200 })
    }

    @Test func presign_rejectsBadBodies_oversizeAndMissingAuth() async throws {
        let server = try await Self.server()
        defer { server.stop() }
        let alice = try Phone.online(server)
        #expect(try Self.presign(server, token: nil, body: Self.presignBody(sizeBytes: 1)).status == 401)
        #expect(try Self.presign(server, token: "not-a-token", body: Self.presignBody(sizeBytes: 1)).status == 401)
        for body in [Self.presignBody(sizeBytes: 0), Self.presignBody(sizeBytes: -5), "{", "[]",
                     Self.presignBody(contentType: "jpeg", sizeBytes: 5),
                     #"{"contentType":"image/jpeg","sizeBytes":5,"purpose":"avatar"}"#,
                     #"{"contentType":"image/jpeg","sizeBytes":"5","purpose":"message_attachment"}"#,
                     #"{"contentType":"image/jpeg","sizeBytes":5,"purpose":"message_attachment","x":1}"#] {
            let reply = try Self.presign(server, token: alice.token, body: body)
            #expect(reply.status == 400, "\(body) → \(reply.text)")
            #expect(Self.code(reply) == "INVALID_PAYLOAD")
        }
        // Caps by kind, at N and N+1: image 15 MB, audio 25 MB, anything else 50 MB.
        for (type, cap) in [("image/png", 15_000_000), ("audio/ogg", 25_000_000), ("application/pdf", 50_000_000)] {
            #expect(try Self.presign(server, token: alice.token, body: Self.presignBody(contentType: type, sizeBytes: Int64(cap))).status == 200)
            let over = try Self.presign(server, token: alice.token, body: Self.presignBody(contentType: type, sizeBytes: Int64(cap + 1)))
            #expect(over.status == 413, "\(type): \(over.text)")
            #expect(Self.code(over) == "PAYLOAD_TOO_LARGE")
        }
        // The session still works afterwards.
        #expect(try Self.presign(server, token: alice.token, body: Self.presignBody(sizeBytes: 1)).status == 200)
    }

    @Test func presign_isRateLimited_with429AndRetryAfter() async throws {
        let server = try await Self.server(["WHISPER_RATE_PRESIGN": "2/60"])
        defer { server.stop() }
        let alice = try Phone.online(server)
        for _ in 0..<2 { #expect(try Self.presign(server, token: alice.token, body: Self.presignBody(sizeBytes: 1)).status == 200) }
        let limited = try Self.presign(server, token: alice.token, body: Self.presignBody(sizeBytes: 1))
        #expect(limited.status == 429, "\(limited.text)")
        #expect(Self.code(limited) == "RATE_LIMITED")
        #expect(Int(limited.headers["retry-after"] ?? "") ?? 0 >= 1)
    }

    @Test func attachmentRoutes_answer503_withoutAnS3Store() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let alice = try Phone.online(server)
        let presign = try Self.presign(server, token: alice.token, body: Self.presignBody(sizeBytes: 1))
        #expect(presign.status == 503)
        #expect(Self.code(presign) == "ATTACHMENTS_DISABLED")
        #expect(try Self.download(server, objectKey: "att/2026/01/x.bin", token: alice.token).status == 503)
    }
}
