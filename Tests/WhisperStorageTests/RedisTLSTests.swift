import Foundation
import Synchronization
import Testing
import WhisperOps
import WhisperRuntime
@testable import WhisperStorage
import WhisperTesting

/// Redis over TLS (`rediss://`) against redis-server's own TLS port: the `scripts/test` servers
/// `WHISPER_TEST_REDIS_TLS_URL` (client certificates optional) and `WHISPER_TEST_REDIS_MTLS_URL`
/// (required), each with a throwaway CA.
@Suite("Redis over TLS against a real server")
struct RedisTLSTests {
    /// The TLS test server trusting its own CA, plus whatever `configure` adds.
    static func connect(configure: (inout RedisConfiguration) -> Void = { _ in }) async throws -> RedisFixture {
        try await RedisFixture.connect(url: try TestEnvironment.redisTLSURL) { configuration in
            configuration.tls?.caFile = try? TestEnvironment.redisTLSDirectory + "/ca.pem"
            configure(&configuration)
        }
    }

    @Test func commands_andAPipelinedBurst_travelOverTLS() async throws {
        let redis = try await Self.connect()
        defer { redis.close() }
        #expect(redis.client.configuration.redactedDescription.hasPrefix("rediss://127.0.0.1:"))
        let key = redis.key("bytes")
        let value: [UInt8] = [0, 1, 2, 255, 13, 10] + Array(repeating: 7, count: 100_000)
        #expect(try await redis.client.send([Array("SET".utf8), Array(key.utf8), value]) == .status("OK"))
        #expect(try await redis.client.send([Array("GET".utf8), Array(key.utf8)]) == .bulk(value))

        let client = redis.client
        let counter = redis.key("counter")
        let count = 5_000
        let replies = await redis.harness.run { (done: @escaping @Sendable ([Int64]) -> Void) in
            var values: [Int64] = []
            for _ in 0..<count {
                client.send(["INCR", counter]) { result in
                    values.append((try? result.get().integer) ?? -1)
                    if values.count == count { done(values) }
                }
            }
        }
        #expect(replies == Array(1...Int64(count)))
        _ = try await client.send(["DEL", key, counter])
    }

    @Test func pubSub_deliversOverTLS() async throws {
        let redis = try await Self.connect()
        defer { redis.close() }
        let subscriber = RedisSubscriber(configuration: redis.client.configuration, loop: redis.harness.loop,
                                         log: TestEnvironment.log)
        defer { subscriber.close() }
        let channel = redis.key("chan")
        let inbox = MessageInbox()
        redis.harness.loop.execute { subscriber.subscribe(channel) { inbox.append($0) } }
        subscriber.start()
        #expect(await PubSub.waitForReceiver(redis.client, channel: channel, inbox: inbox))
        let payload: [UInt8] = [0, 255, 10, 13]
        #expect(try await redis.client.send([Array("PUBLISH".utf8), Array(channel.utf8), payload]) == .integer(1))
        #expect(await eventually(within: 5) { inbox.contains(payload) })
    }

    @Test func shardedPubSub_smessagePushes_reachOnMessage_andConfirmationsDoNot() async throws {
        let redis = try await Self.connect()
        defer { redis.close() }
        let channel = Array(redis.key("shard").utf8)
        let raw = try #require(try await RawRedisConnection.open(redis.client.configuration, on: redis.harness))
        let sent = await raw.run { (connection, done: @escaping @Sendable (Bool) -> Void) in
            done(connection.subscription("SSUBSCRIBE", channels: [channel]))
        }
        #expect(sent == true)
        let payload = Array("sharded".utf8)
        #expect(await eventually(within: 5) {
            (try? await redis.client.send([Array("SPUBLISH".utf8), channel, payload])) == .integer(1)
        })
        #expect(await eventually(within: 5) { raw.messages.contains(payload) })
        #expect(raw.messages.allSatisfy { $0 == payload }, "only messages, no confirmations")
        #expect(raw.closeReason == nil)
        await raw.close()
    }

    /// Starts a client that must never become ready, and returns its log once it says `reason`.
    private static func expectRefused(_ configuration: RedisConfiguration, saying reason: String) async throws -> LogLines {
        let lines = LogLines()
        let harness = try TestLoop()
        defer { harness.shutdown() }
        let client = RedisClient(configuration: configuration, loop: harness.loop, log: lines.log)
        defer { client.close() }
        client.start()
        // Generous: under the full suite's load a TLS handshake and its refusal can take seconds.
        #expect(await eventually(within: 20) { lines.contains(reason) }, "\(reason)")
        #expect(client.isConnected == false)
        #expect(await attempt(client, ["PING"]).failureValue == .disconnected)
        return lines
    }

    @Test func aWrongCA_neverBecomesReady_andTheLogSaysWhy_withoutTheSecret() async throws {
        let url = try TestEnvironment.redisTLSURL.replacingOccurrences(of: "rediss://", with: "rediss://:hunter2-secret@")
        var configuration = try RedisConfiguration(url: url)
        configuration.tls?.caFile = try TestEnvironment.redisMutualTLSDirectory + "/ca.pem"  // another CA
        let lines = try await Self.expectRefused(configuration, saying: "certificate verify failed")
        #expect(!lines.contains("hunter2"))
    }

    @Test func aCertificateForAnotherName_isRefused() async throws {
        var configuration = try RedisConfiguration(url: TestEnvironment.redisTLSURL)
        configuration.tls?.caFile = try TestEnvironment.redisTLSDirectory + "/ca.pem"
        configuration.tls?.serverName = "redis.example.com"
        _ = try await Self.expectRefused(configuration, saying: "certificate verify failed: hostname mismatch")
    }

    @Test func theNameLocalhost_isResolvedOffTheLoop_andVerified() async throws {
        let redis = try await Self.connect { $0.host = "localhost" }
        defer { redis.close() }
        #expect(try await redis.client.send(["PING"]) == .status("PONG"))
    }

    @Test func mutualTLS_needsTheClientCertificate() async throws {
        let directory = try TestEnvironment.redisMutualTLSDirectory
        var configuration = try RedisConfiguration(url: TestEnvironment.redisMutualTLSURL)
        configuration.tls?.caFile = directory + "/ca.pem"
        _ = try await Self.expectRefused(configuration, saying: "certificate required")

        configuration.tls?.certificateFile = directory + "/client.pem"
        configuration.tls?.keyFile = directory + "/client.key"
        let redis = try await RedisFixture.connect(url: TestEnvironment.redisMutualTLSURL) { $0.tls = configuration.tls }
        defer { redis.close() }
        #expect(try await redis.client.send(["PING"]) == .status("PONG"))
    }

    @Test func aclUserAndPassword_authenticateOverTLS() async throws {
        let admin = try await Self.connect()
        defer { admin.close() }
        let user = admin.prefix
        let password = "tls-\(admin.prefix)"
        #expect(try await admin.client.send(["ACL", "SETUSER", user, "on", ">" + password, "~*", "+@all"]) == .status("OK"))
        try await withCleanup {
            let authed = try await Self.connect {
                $0.username = user
                $0.password = password
            }
            defer { authed.close() }
            #expect(try await authed.client.send(["ACL", "WHOAMI"]) == .bulk(Array(user.utf8)))
        } cleanup: {
            _ = try? await admin.client.send(["ACL", "DELUSER", user])
        }
    }
}

/// Collects storage log lines from the loop thread (and passes them on to `TestEnvironment.log`).
final class LogLines: Sendable {
    private let lines = Mutex<[String]>([])

    var log: StorageLog {
        { [self] level, message in
            lines.withLock { $0.append(message) }
            TestEnvironment.log(level, message)
        }
    }

    func contains(_ text: String) -> Bool {
        lines.withLock { $0.contains { $0.contains(text) } }
    }
}
