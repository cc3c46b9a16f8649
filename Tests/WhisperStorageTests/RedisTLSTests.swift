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
        let configuration = redis.client.configuration
        let tls = try configuration.clientTLS()
        let channel = Array(redis.key("shard").utf8)
        let inbox = MessageInbox()
        let holder = LoopBound(Holder(), loop: redis.harness.loop)
        let subscribed = await redis.harness.run { (done: @escaping @Sendable (Bool) -> Void) in
            let opened = RedisConnection.open(host: configuration.host, port: configuration.port, tls: tls,
                                              loop: holder.loop, timeoutNanos: 5_000_000_000) { connection in
                connection.onConnected = { [weak connection] in
                    done(connection?.subscription("SSUBSCRIBE", channels: [channel]) ?? false)
                }
                connection.onMessage = { pushed, payload in
                    if pushed == channel { inbox.append(payload) }
                }
                connection.onClosed = { _ in inbox.append(Array("closed".utf8)) }
            }
            holder.value.connection = try? opened.get()
        }
        #expect(subscribed)
        let payload = Array("sharded".utf8)
        #expect(await eventually(within: 5) {
            (try? await redis.client.send([Array("SPUBLISH".utf8), channel, payload])) == .integer(1)
        })
        #expect(await eventually(within: 5) { inbox.contains(payload) })
        #expect(inbox.all.allSatisfy { $0 == payload }, "only messages: no confirmations, no close")
        _ = await redis.harness.run { (done: @escaping @Sendable (Bool) -> Void) in
            holder.value.connection?.close(because: "test done")
            done(true)
        }
    }

    @Test func aWrongCA_neverBecomesReady_andTheLogSaysWhy_withoutTheSecret() async throws {
        let url = try TestEnvironment.redisTLSURL.replacingOccurrences(of: "rediss://", with: "rediss://:hunter2-secret@")
        var configuration = try RedisConfiguration(url: url)
        configuration.tls?.caFile = try TestEnvironment.redisMutualTLSDirectory + "/ca.pem"  // another CA
        let lines = LogLines()
        let harness = try TestLoop()
        defer { harness.shutdown() }
        let client = RedisClient(configuration: configuration, loop: harness.loop, log: lines.log)
        defer { client.close() }
        client.start()
        #expect(await eventually(within: 5) { lines.contains("certificate verify failed") })
        #expect(client.isConnected == false)
        #expect(await attempt(client, ["PING"]).failureValue == .disconnected)
        #expect(!lines.contains("hunter2"))
    }

    @Test func aCertificateForAnotherName_isRefused() async throws {
        let lines = LogLines()
        var configuration = try RedisConfiguration(url: TestEnvironment.redisTLSURL)
        configuration.tls?.caFile = try TestEnvironment.redisTLSDirectory + "/ca.pem"
        configuration.tls?.serverName = "redis.example.com"
        let harness = try TestLoop()
        defer { harness.shutdown() }
        let client = RedisClient(configuration: configuration, loop: harness.loop, log: lines.log)
        defer { client.close() }
        client.start()
        #expect(await eventually(within: 5) { lines.contains("hostname mismatch") })
        #expect(client.isConnected == false)
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
        let lines = LogLines()
        let harness = try TestLoop()
        defer { harness.shutdown() }
        let anonymous = RedisClient(configuration: configuration, loop: harness.loop, log: lines.log)
        defer { anonymous.close() }
        anonymous.start()
        #expect(await eventually(within: 5) { lines.contains("connect failed") })
        #expect(anonymous.isConnected == false)

        let redis = try await RedisFixture.connect(url: TestEnvironment.redisMutualTLSURL) {
            $0.tls = RedisTLSSettings(caFile: directory + "/ca.pem", certificateFile: directory + "/client.pem",
                                      keyFile: directory + "/client.key")
        }
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

/// Keeps a connection opened by a test alive on its loop.
private final class Holder {
    var connection: RedisConnection?
}

/// Collects storage log lines from the loop thread.
final class LogLines: Sendable {
    private let lines = Mutex<[String]>([])

    var log: StorageLog {
        { [self] _, message in lines.withLock { $0.append(message) } }
    }

    func contains(_ text: String) -> Bool {
        lines.withLock { $0.contains { $0.contains(text) } }
    }
}
