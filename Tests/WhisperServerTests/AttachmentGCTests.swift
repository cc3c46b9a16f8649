import Foundation
import Testing
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

        /// Sends `objectKey` from `sender` to `recipient` and waits until the recipient may download it.
        static func share(_ objectKey: String, from sender: Phone, to recipient: Phone, server: TestServer) async throws -> String {
            let message = TestMessage(from: sender.id, to: recipient.id, msgType: "image",
                                      extra: ["attachment": AttachmentTests.pointer(objectKey, size: 3)])
            #expect(try sender.send(message).frameType == "message_accepted")
            #expect(try recipient.ws.receiveJSON().frameType == "message_received")
            #expect(await eventually {
                (try? AttachmentTests.download(server, objectKey: objectKey, token: recipient.token).status) == 200
            })
            return message.messageId
        }

        static func storeStatus(_ server: TestServer, objectKey: String, token: String) throws -> Int? {
            let reply = try AttachmentTests.download(server, objectKey: objectKey, token: token)
            guard let url = reply.json?["downloadUrl"] as? String else { return nil }
            return try TestHTTP.request("GET", url: url).status
        }

        @Test func gcRun_deletesDeliveredAndUnreferencedObjects_andKeepsUndeliveredOnes() async throws {
            let server = try await Self.server(["WHISPER_ATTACHMENT_UNREFERENCED_GRACE_SECONDS": "0"])
            defer { server.stop() }
            let alice = try Phone.online(server), bob = try Phone.online(server), carol = try Phone.online(server)
            let delivered = try AttachmentTests.upload(server, token: alice.token, bytes: [1, 2, 3])
            let pending = try AttachmentTests.upload(server, token: alice.token, bytes: [4, 5, 6])
            let unreferenced = try AttachmentTests.upload(server, token: alice.token, bytes: [7, 8, 9])
            let deliveredId = try await Self.share(delivered, from: alice, to: bob, server: server)
            _ = try await Self.share(pending, from: alice, to: carol, server: server)
            let deliveredURL = try #require(
                AttachmentTests.download(server, objectKey: delivered, token: bob.token).json?["downloadUrl"] as? String)
            #expect(try bob.ws.receipt(messageId: deliveredId, from: bob.id, to: alice.id, token: bob.token).frameType
                        == "receipt_accepted")

            let run = try Self.runGC(server)
            #expect(run.status == 200, "\(run.text)")
            #expect(((run.json?["deleted"] as? NSNumber)?.intValue ?? 0) >= 2, "\(run.text)")
            // Delivered to its only recipient: gone from the store and from PostgreSQL.
            #expect(try TestHTTP.request("GET", url: deliveredURL).status == 404)
            #expect(try AttachmentTests.download(server, objectKey: delivered, token: bob.token).status == 404)
            #expect(try AttachmentTests.download(server, objectKey: delivered, token: alice.token).status == 404)
            // Referenced by no message past the grace period: gone.
            #expect(try AttachmentTests.download(server, objectKey: unreferenced, token: alice.token).status == 404)
            // Carol has not receipted: kept, for her and in the store.
            #expect(try Self.storeStatus(server, objectKey: pending, token: carol.token) == 200)
            // A second run finds nothing more of these and is audited too.
            #expect(try Self.runGC(server).status == 200)
            #expect(try Self.storeStatus(server, objectKey: pending, token: alice.token) == 200)
            let metrics = try Admin.call(server, "GET", "/metrics").text
            let deletedLine = metrics.split(separator: "\n").first { $0.hasPrefix(#"whisper_attachments_total{event="deleted"}"#) }
            #expect(Int(deletedLine?.split(separator: " ").last ?? "") ?? 0 >= 2, "\(deletedLine ?? "no series")")
            let audit = Admin.items(try Admin.call(server, "GET", "/admin/audit"))
            #expect(audit.contains { $0["action"] as? String == "attachments_gc" }, "\(audit)")
        }

        @Test func gcRun_deletesObjectsPastTheirRetention_evenUndelivered() async throws {
            let server = try await Self.server(["WHISPER_ATTACHMENT_RETENTION_SECONDS": "1"])
            defer { server.stop() }
            let alice = try Phone.online(server), bob = try Phone.online(server)
            let objectKey = try AttachmentTests.upload(server, token: alice.token, bytes: [1, 2, 3])
            _ = try await Self.share(objectKey, from: alice, to: bob, server: server)
            let url = try #require(AttachmentTests.download(server, objectKey: objectKey, token: bob.token)
                .json?["downloadUrl"] as? String)
            try await Task.sleep(for: .milliseconds(1_500))
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
