import Foundation
import Testing
import WhisperStorage
import WhisperTesting

extension AttachmentTests {
    /// Attachment GC against the LocalStack S3: `POST /admin/attachments/gc/run` and the periodic
    /// run. Nested in `AttachmentTests`, so it is serialized with the other attachment tests (a
    /// run may delete any test's objects that match its rules, and they share one database).
    @Suite struct GC {
        static func server(_ overrides: [String: String] = [:]) async throws -> TestServer {
            try await AttachmentTests.server(Admin.environment(overrides))
        }

        static func runGC(_ server: TestServer) throws -> TestHTTPResponse {
            try Admin.call(server, "POST", "/admin/attachments/gc/run")
        }

        /// Sends `objectKey` from `sender` to `recipient` and waits until the server has recorded
        /// the recipient — without asking for the download URL as the recipient, which the GC
        /// would count as its download.
        static func share(_ objectKey: String, from sender: Phone, to recipient: Phone, server: TestServer) async throws -> String {
            let message = TestMessage(from: sender.id, to: recipient.id, msgType: "image",
                                      extra: ["attachment": AttachmentTests.pointer(objectKey, size: 3)])
            #expect(try sender.send(message).frameType == "message_accepted")
            #expect(try recipient.ws.receiveJSON().frameType == "message_received")
            let db = try Identity.database()
            defer { db.shutdown() }
            #expect(await eventually {
                let rows = try? await db.query(
                    "SELECT 1 FROM attachment_recipients WHERE object_key = $1 AND recipient_id = $2 AND message_id = $3",
                    [.text(objectKey), .text(recipient.id), .text(message.messageId)])
                return rows?.isEmpty == false
            })
            return message.messageId
        }

        /// What the store answers to a GET of the object, through a URL presigned for `token`.
        static func storeStatus(_ server: TestServer, objectKey: String, token: String) throws -> Int? {
            let reply = try AttachmentTests.download(server, objectKey: objectKey, token: token)
            guard let url = reply.json?["downloadUrl"] as? String else { return nil }
            return try TestHTTP.request("GET", url: url).status
        }

        static func downloadURL(_ server: TestServer, objectKey: String, token: String) throws -> String {
            let reply = try AttachmentTests.download(server, objectKey: objectKey, token: token)
            #expect(reply.status == 200, "\(reply.text)")
            return try #require(reply.json?["downloadUrl"] as? String)
        }

        static func deletedCount(_ run: TestHTTPResponse) -> Int { (run.json?["deleted"] as? NSNumber)?.intValue ?? -1 }

        @Test func gcRun_waitsForEveryRecipientsDownload_notForDeliveryReceipts() async throws {
            let server = try await Self.server(["WHISPER_ATTACHMENT_UNREFERENCED_GRACE_SECONDS": "0"])
            defer { server.stop() }
            let alice = try Phone.online(server), bob = try Phone.online(server), carol = try Phone.online(server)
            let downloaded = try AttachmentTests.upload(server, token: alice.token, bytes: [1, 2, 3])
            let receipted = try AttachmentTests.upload(server, token: alice.token, bytes: [4, 5, 6])
            let unreferenced = try AttachmentTests.upload(server, token: alice.token, bytes: [7, 8, 9])
            let shared = try AttachmentTests.upload(server, token: alice.token, bytes: [1, 5, 9])
            // Bob asks for his download URL (and receipts); Carol only receipts.
            let downloadedId = try await Self.share(downloaded, from: alice, to: bob, server: server)
            let bobsURL = try Self.downloadURL(server, objectKey: downloaded, token: bob.token)
            #expect(try bob.ws.receipt(messageId: downloadedId, from: bob.id, to: alice.id, token: bob.token).frameType
                        == "receipt_accepted")
            #expect(try alice.ws.receiveJSON().frameType == "message_delivered")
            let receiptedId = try await Self.share(receipted, from: alice, to: carol, server: server)
            #expect(try carol.ws.receipt(messageId: receiptedId, from: carol.id, to: alice.id, token: carol.token).frameType
                        == "receipt_accepted")
            #expect(try alice.ws.receiveJSON().frameType == "message_delivered")
            // One object to two recipients: only Bob downloads it.
            _ = try await Self.share(shared, from: alice, to: bob, server: server)
            _ = try await Self.share(shared, from: alice, to: carol, server: server)
            _ = try Self.downloadURL(server, objectKey: shared, token: bob.token)
            // The uploader's own downloads count for nothing.
            _ = try Self.downloadURL(server, objectKey: receipted, token: alice.token)

            let run = try Self.runGC(server)
            #expect(run.status == 200, "\(run.text)")
            #expect(Self.deletedCount(run) >= 2, "\(run.text)")
            // Asked for by its only recipient: gone from the store and from PostgreSQL.
            #expect(try TestHTTP.request("GET", url: bobsURL).status == 404)
            #expect(try AttachmentTests.download(server, objectKey: downloaded, token: bob.token).status == 404)
            #expect(try AttachmentTests.download(server, objectKey: downloaded, token: alice.token).status == 404)
            // Referenced by no message past the grace period: gone.
            #expect(try AttachmentTests.download(server, objectKey: unreferenced, token: alice.token).status == 404)
            // Receipted `delivered` but never downloaded, and downloaded by one of two: kept.
            #expect(try Self.storeStatus(server, objectKey: receipted, token: alice.token) == 200)
            #expect(try Self.storeStatus(server, objectKey: shared, token: alice.token) == 200)
            let metrics = try Admin.call(server, "GET", "/metrics").text
            let deletedLine = metrics.split(separator: "\n").first { $0.hasPrefix(#"whisper_attachments_total{event="deleted"}"#) }
            #expect(Int(deletedLine?.split(separator: " ").last ?? "") ?? 0 >= 2, "\(deletedLine ?? "no series")")
            let audit = Admin.items(try Admin.call(server, "GET", "/admin/audit"))
            #expect(audit.contains { $0["action"] as? String == "attachments_gc" }, "\(audit)")

            // Carol's downloads complete both: the next run deletes them.
            let carolsURL = try Self.downloadURL(server, objectKey: shared, token: carol.token)
            _ = try Self.downloadURL(server, objectKey: receipted, token: carol.token)
            #expect(Self.deletedCount(try Self.runGC(server)) >= 2)
            #expect(try TestHTTP.request("GET", url: carolsURL).status == 404)
            #expect(try AttachmentTests.download(server, objectKey: shared, token: alice.token).status == 404)
            #expect(try AttachmentTests.download(server, objectKey: receipted, token: alice.token).status == 404)
        }

        @Test func gcRun_deletesObjectsPastTheRetentionAfterTheirNewestMessage_evenNotDownloaded() async throws {
            // 5 s: the share, a GC run and a presign must fit in it on a loaded machine.
            let server = try await Self.server(["WHISPER_ATTACHMENT_RETENTION_SECONDS": "5"])
            defer { server.stop() }
            let alice = try Phone.online(server), bob = try Phone.online(server)
            let objectKey = try AttachmentTests.upload(server, token: alice.token, bytes: [1, 2, 3])
            // The retention counts from the message, not from the presign.
            try await Task.sleep(for: .milliseconds(5_500))
            let shared = ContinuousClock.now
            _ = try await Self.share(objectKey, from: alice, to: bob, server: server)
            #expect(try Self.runGC(server).status == 200)
            let url = try Self.downloadURL(server, objectKey: objectKey, token: alice.token)
            let download = try TestHTTP.request("GET", url: url).status
            // Kept within the retention: checked only when the share, the run and the download
            // surely fit in it (a starved test may reach them later).
            if ContinuousClock.now - shared < .seconds(5) { #expect(download == 200) }
            try await Task.sleep(for: .milliseconds(5_500))
            #expect(try Self.runGC(server).status == 200)
            #expect(try AttachmentTests.download(server, objectKey: objectKey, token: bob.token).status == 404)
            #expect(try TestHTTP.request("GET", url: url).status == 404)
        }

        @Test func gcRun_keepsTheRowWhenTheStoreRefusesTheDelete_andTheNextRunDeletesIt() async throws {
            let grace = ["WHISPER_ATTACHMENT_UNREFERENCED_GRACE_SECONDS": "0"]
            let server = try await Self.server(grace)
            defer { server.stop() }
            let refused = try await Self.server(grace.merging(["WHISPER_S3_SECRET_KEY": "wrong"]) { $1 })
            defer { refused.stop() }
            let alice = try Phone.online(server)
            let objectKey = try AttachmentTests.upload(server, token: alice.token, bytes: [1, 2, 3])
            // The store answers 403 to the badly signed DELETE: nothing is forgotten.
            let failed = try Self.runGC(refused)
            #expect(failed.status == 200, "\(failed.text)")
            #expect(failed.json?["deleted"] as? NSNumber == 0)
            #expect(try Self.storeStatus(server, objectKey: objectKey, token: alice.token) == 200)
            #expect(try Self.runGC(server).status == 200)
            #expect(try AttachmentTests.download(server, objectKey: objectKey, token: alice.token).status == 404)
        }

        /// `WHISPER_S3_PUBLIC_ENDPOINT` is what phones get; the GC's deletes use `WHISPER_S3_ENDPOINT`
        /// (compose: MinIO's published address vs `http://minio:9000`). Here both name LocalStack,
        /// as `localhost` and as `127.0.0.1`: distinct hosts to SigV4, which signs `Host`.
        @Test func presignedURLs_nameThePublicEndpoint_whileGCDeletesGoToTheServersOwn() async throws {
            let own = try TestEnvironment.s3Endpoint
            let publicEndpoint = own.replacingOccurrences(of: "//127.0.0.1:", with: "//localhost:")
            try #require(publicEndpoint != own, "WHISPER_TEST_S3_ENDPOINT is not on 127.0.0.1: \(own)")
            let grace = ["WHISPER_ATTACHMENT_UNREFERENCED_GRACE_SECONDS": "0"]
            let server = try await Self.server(grace.merging(["WHISPER_S3_PUBLIC_ENDPOINT": publicEndpoint]) { $1 })
            defer { server.stop() }
            let alice = try Phone.online(server)
            let presign = try AttachmentTests.presign(server, token: alice.token, body: AttachmentTests.presignBody(sizeBytes: 3))
            let uploadURL = try #require(presign.json?["uploadUrl"] as? String)
            let headers = try #require(presign.json?["headers"] as? [String: String])
            let objectKey = try #require(presign.json?["objectKey"] as? String)
            #expect(uploadURL.hasPrefix(publicEndpoint + "/"), "\(uploadURL)")
            // Signed for the public host: the store refuses it under the other name, takes it under its own.
            let elsewhere = uploadURL.replacingOccurrences(of: publicEndpoint, with: own)
            #expect(try TestHTTP.request("PUT", url: elsewhere, headers: headers, body: [1, 2, 3]).status == 403)
            #expect(try TestHTTP.request("PUT", url: uploadURL, headers: headers, body: [1, 2, 3]).status == 200)
            let downloadURL = try Self.downloadURL(server, objectKey: objectKey, token: alice.token)
            #expect(downloadURL.hasPrefix(publicEndpoint + "/"), "\(downloadURL)")
            #expect(try TestHTTP.request("GET", url: downloadURL).status == 200)

            // A node whose public endpoint reaches nothing still deletes: through its own endpoint.
            let deleter = try await Self.server(grace.merging(["WHISPER_S3_PUBLIC_ENDPOINT": "http://127.0.0.1:1"]) { $1 })
            defer { deleter.stop() }
            let run = try Self.runGC(deleter)
            #expect(run.status == 200 && Self.deletedCount(run) >= 1, "\(run.text)")
            #expect(try TestHTTP.request("GET", url: downloadURL).status == 404)
        }

        @Test func periodicGC_runsOnItsOwn() async throws {
            let server = try await Self.server(["WHISPER_ATTACHMENT_UNREFERENCED_GRACE_SECONDS": "0",
                                                "WHISPER_ATTACHMENT_GC_INTERVAL_SECONDS": "1"])
            defer { server.stop() }
            let alice = try Phone.online(server)
            let objectKey = try AttachmentTests.upload(server, token: alice.token, bytes: [1, 2, 3])
            #expect(await eventually(within: 10) {
                (try? AttachmentTests.download(server, objectKey: objectKey, token: alice.token).status) == 404
            })
        }

        @Test func periodicGC_waits_whileAnotherNodeHoldsTheLease() async throws {
            let prefix = "test-gc-\(UUID().uuidString.prefix(8).lowercased()):"
            let redis = try TestRedis(url: try TestEnvironment.redisURL)
            // Another node's lease, taken before this server's first periodic attempt.
            #expect(try redis.command(["SET", prefix + "attachment-gc-lease", "other-node", "PX", "60000"]) == .status("OK"))
            let server = try await Self.server(["WHISPER_ATTACHMENT_UNREFERENCED_GRACE_SECONDS": "0",
                                                "WHISPER_ATTACHMENT_GC_INTERVAL_SECONDS": "1",
                                                "WHISPER_REDIS_PREFIX": prefix])
            defer { server.stop() }
            let alice = try Phone.online(server)
            let objectKey = try AttachmentTests.upload(server, token: alice.token, bytes: [1, 2, 3])
            try await Task.sleep(for: .milliseconds(2_500))
            #expect(try AttachmentTests.download(server, objectKey: objectKey, token: alice.token).status == 200)
            _ = try redis.command(["DEL", prefix + "attachment-gc-lease"])
            #expect(await eventually(within: 10) {
                (try? AttachmentTests.download(server, objectKey: objectKey, token: alice.token).status) == 404
            })
        }

        /// Many HTTP clients send `{}` with every POST: the route that takes no body takes that too.
        @Test func gcRun_takesNoBody_orAnEmptyObject_andRefusesAnyOther() async throws {
            let server = try await Self.server()
            defer { server.stop() }
            for body in [nil, "{}", " { }\r\n"] {
                let run = try Admin.call(server, "POST", "/admin/attachments/gc/run", body: body)
                #expect(run.status == 200 && Self.deletedCount(run) >= 0, "\(body ?? "none"): \(run.text)")
            }
            for body in [#"{"dryRun":true}"#, "[]", "null", "x"] {
                let run = try Admin.call(server, "POST", "/admin/attachments/gc/run", body: body)
                #expect(run.status == 400 && Admin.code(run) == "INVALID_PAYLOAD", "\(body): \(run.text)")
            }
            let tooLarge = try Admin.call(server, "POST", "/admin/attachments/gc/run", body: "{" + String(repeating: " ", count: 63) + "}")
            #expect(tooLarge.status == 413, "\(tooLarge.text)")
        }

        @Test func gcRun_needsTheAdminToken_andS3() async throws {
            let server = try await Self.server()
            defer { server.stop() }
            let unauthorized = try Admin.call(server.adminPort, "POST", "/admin/attachments/gc/run", token: "nope")
            #expect(unauthorized.status == 401)
            let withoutS3 = try await Admin.server()
            defer { withoutS3.stop() }
            let disabled = try Self.runGC(withoutS3)
            #expect(disabled.status == 503)
            #expect(Admin.code(disabled) == "ATTACHMENTS_DISABLED")
            // Not on the public listener.
            #expect(try Admin.call(server.publicPort, "POST", "/admin/attachments/gc/run").status == 404)
        }
    }
}
