import Foundation
import Synchronization
import Testing
import WhisperRuntime
@testable import WhisperStorage
import WhisperTesting

@Suite("RedisClient against a real server")
struct RedisClientTests {
    @Test func setGet_isBinarySafe_includingNULBytes() async throws {
        let redis = try await RedisFixture.connect()
        defer { redis.close() }
        let key = Array(redis.key("bin").utf8) + [0, 0xff, 0]
        let value: [UInt8] = [0, 1, 0, 255, 13, 10, 0x24, 0x2a, 0]
        #expect(try await redis.client.send([Array("SET".utf8), key, value]) == .status("OK"))
        #expect(try await redis.client.send([Array("GET".utf8), key]) == .bulk(value))
        #expect(try await redis.client.send([Array("SET".utf8), key, []]) == .status("OK"))
        #expect(try await redis.client.send([Array("GET".utf8), key]) == .bulk([]))
        _ = try await redis.client.send([Array("DEL".utf8), key])
    }

    @Test func pipelining_tenThousandCommands_repliesInOrder() async throws {
        let redis = try await RedisFixture.connect()
        defer { redis.close() }
        let client = redis.client
        let key = redis.key("counter")
        let count = 10_000
        let (replies, seconds) = await measure {
            await redis.harness.run { (done: @escaping @Sendable ([Int64]) -> Void) in
                // All 10k are issued in one loop iteration and leave in one flush.
                var values: [Int64] = []
                values.reserveCapacity(count)
                for _ in 0..<count {
                    client.send(["INCR", key]) { result in
                        values.append((try? result.get().integer) ?? -1)
                        if values.count == count { done(values) }
                    }
                }
            }
        }
        #expect(replies == Array(1...Int64(count)))
        #expect(seconds < 10)
        _ = try await client.send(["DEL", key])
    }

    @Test func errorReply_isAValue_andTheConnectionStaysUsable() async throws {
        let redis = try await RedisFixture.connect()
        defer { redis.close() }
        let key = redis.key("text")
        _ = try await redis.client.send(["SET", key, "abc"])
        guard case .error(let message) = try await redis.client.send(["INCR", key]) else {
            Issue.record("INCR on text did not return an error reply")
            return
        }
        #expect(message.hasPrefix("ERR"))
        guard case .error(let unknown) = try await redis.client.send(["NO_SUCH_COMMAND_X"]) else {
            Issue.record("unknown command did not return an error reply")
            return
        }
        #expect(unknown.contains("unknown command"))
        #expect(try await redis.client.send(["PING"]) == .status("PONG"))
        _ = try await redis.client.send(["DEL", key])
    }

    @Test func nilIntegerAndArrayReplies_decode() async throws {
        let redis = try await RedisFixture.connect()
        defer { redis.close() }
        let list = redis.key("list")
        #expect(try await redis.client.send(["GET", redis.key("missing")]) == .bulk(nil))
        #expect(try await redis.client.send(["GET", redis.key("missing")]).isNull)
        #expect(try await redis.client.send(["RPUSH", list, "a", "", "c"]) == .integer(3))
        #expect(try await redis.client.send(["LRANGE", list, "0", "-1"])
                == .array([.bulk(Array("a".utf8)), .bulk([]), .bulk(Array("c".utf8))]))
        #expect(try await redis.client.send(["LRANGE", redis.key("none"), "0", "-1"]) == .array([]))
        _ = try await redis.client.send(["SET", redis.key("one"), "1"])
        #expect(try await redis.client.send(["MGET", redis.key("one"), redis.key("missing")])
                == .array([.bulk(Array("1".utf8)), .bulk(nil)]))
        #expect(try await redis.client.send(["DEL", list, redis.key("one")]) == .integer(2))
    }

    @Test func evalScript_loadsUnderTheSHA1WeComputed_andFallsBackToEvalOnNOSCRIPT() async throws {
        let redis = try await RedisFixture.connect()
        defer { redis.close() }
        let client = redis.client
        // A source unique to this run, so the server cannot have it cached yet.
        let script = RedisScript(source: "-- \(redis.prefix)\nreturn redis.call('INCRBY', KEYS[1], ARGV[1])")
        let key = Array(redis.key("scripted").utf8)
        #expect(try await client.send(["SCRIPT", "EXISTS", script.sha1]) == .array([.integer(0)]))

        #expect(try await client.evalScript(script, keys: [key], arguments: [Array("5".utf8)]) == .integer(5))
        // Loaded (SCRIPT LOAD ahead of the first call) under the SHA-1 we computed.
        #expect(try await client.send(["SCRIPT", "EXISTS", script.sha1]) == .array([.integer(1)]))
        #expect(try await client.send(["SCRIPT", "LOAD", script.source]) == .bulk(Array(script.sha1.utf8)))
        #expect(try await client.evalScript(script, keys: [key], arguments: [Array("2".utf8)]) == .integer(7))

        _ = try await client.send(["SCRIPT", "FLUSH"])
        #expect(try await client.evalScript(script, keys: [key], arguments: [Array("1".utf8)]) == .integer(8))
        _ = try await client.send([Array("DEL".utf8), key])
    }

    @Test func aScriptsFirstCall_runsBeforeACommandSentAfterIt() async throws {
        // With EVALSHA → NOSCRIPT → EVAL, the script ran behind the SET and read "after".
        let redis = try await RedisFixture.connect()
        defer { redis.close() }
        let key = redis.key("ordered")
        #expect(try await firstCallThenSet(redis.client, on: redis.harness.loop, key: key, unique: redis.prefix).get() == .bulk(nil))
        #expect(try await redis.client.send(["GET", key]) == .bulk(Array("after".utf8)))
        _ = try await redis.client.send(["DEL", key])
    }

    @Test func commandsThatBreakReplyOrder_areRefusedWithoutSending() async throws {
        let redis = try await RedisFixture.connect()
        defer { redis.close() }
        #expect(await attempt(redis.client, []).failureValue == .invalidCommand("no arguments"))
        for command in [["SUBSCRIBE", "x"], ["psubscribe", "x*"], ["MONITOR"], ["client", "reply", "off"]] {
            guard case .invalidCommand = await attempt(redis.client, command).failureValue else {
                Issue.record("\(command) was not refused")
                continue
            }
        }
        #expect(try await redis.client.send(["PING"]) == .status("PONG"))
    }

    @Test func selectedDatabase_isUsed() async throws {
        // Each fixture is closed on every path, a failed second connect included.
        let db3 = try await RedisFixture.connect(configure: { $0.database = 3 })
        defer { db3.close() }
        let db0 = try await RedisFixture.connect(configure: { $0.database = 0 })
        defer { db0.close() }
        let key = db3.key("db")
        // With an expiry, so the key goes away even if an expectation below throws first.
        _ = try await db3.client.send(["SET", key, "three", "EX", "60"])
        #expect(try await db3.client.send(["GET", key]) == .bulk(Array("three".utf8)))
        #expect(try await db0.client.send(["GET", key]) == .bulk(nil))
        _ = try await db3.client.send(["DEL", key])
    }

    @Test func hostName_localhost_connects() async throws {
        // A Redis of its own on 127.0.0.1, so the name `localhost` reaches it whatever host
        // the shared test Redis runs on: the test always runs.
        try await withPrivateService(.redis) { server in
            let redis = try await RedisFixture.connect(url: server.url, configure: { $0.host = "localhost" })
            defer { redis.close() }
            #expect(redis.client.configuration.host == "localhost")
            #expect(try await redis.client.send(["PING"]) == .status("PONG"))
        }
    }

    @Test func aclUserAndPassword_authenticate_andAWrongPasswordNeverBecomesReady() async throws {
        let admin = try await RedisFixture.connect()
        defer { admin.close() }
        let user = admin.prefix
        let password = "p@ss:word/\(admin.prefix)"
        #expect(try await admin.client.send(["ACL", "SETUSER", user, "on", ">" + password, "~*", "+@all"]) == .status("OK"))
        // The user is deleted on every path, a failed connect or expectation included.
        try await withCleanup {
            let config = admin.client.configuration
            let escaped = password.replacingOccurrences(of: "@", with: "%40").replacingOccurrences(of: ":", with: "%3A")
                .replacingOccurrences(of: "/", with: "%2F")
            let url = "redis://\(user):\(escaped)@\(config.host):\(config.port)/0"
            do {
                let authed = try await RedisFixture.connect(url: url)
                defer { authed.close() }
                #expect(try await authed.client.send(["ACL", "WHOAMI"]) == .bulk(Array(user.utf8)))
            }

            let harness = try TestLoop()
            defer { harness.shutdown() }
            let wrong = try RedisClient(url: "redis://\(user):wrong@\(config.host):\(config.port)/0", loop: harness.loop,
                                        log: TestEnvironment.log)
            wrong.start()
            try await Task.sleep(nanoseconds: 500_000_000)
            #expect(wrong.isConnected == false)
            #expect(await attempt(wrong, ["PING"]).failureValue == .disconnected)
            wrong.close()
        } cleanup: {
            _ = try? await admin.client.send(["ACL", "DELUSER", user])
        }
    }

    @Test func commandTimeout_failsInFlightCommands_andReconnects() async throws {
        let redis = try await RedisFixture.connect(configure: { $0.commandTimeoutMillis = 300 })
        defer { redis.close() }
        let client = redis.client
        let key = redis.key("blocked")
        // BLPOP blocks server-side for 10 s: far longer than the 300 ms timeout, so even a
        // loaded machine tells the timeout from the BLPOP's own answer.
        let (outcomes, seconds) = await measure {
            await redis.harness.run { (done: @escaping @Sendable ([RedisError?]) -> Void) in
                var errors: [RedisError?] = []
                for command in [["BLPOP", key, "10"], ["PING"]] {
                    client.send(command) { result in
                        errors.append(result.failureValue)
                        if errors.count == 2 { done(errors) }
                    }
                }
            }
        }
        #expect(outcomes == [.timeout, .timeout])
        #expect(seconds < 9)  // the BLPOP itself would answer (nil) at 10 s
        // The timed-out connection may still read as connected for a moment after the
        // commands failed (the loop marks it lost right after): wait for the reconnect.
        #expect(await eventually(within: 5) { client.reconnectCount >= 1 && client.isConnected })
        #expect(try await client.send(["PING"]) == .status("PONG"))
        #expect(client.reconnectCount >= 1)
    }

    @Test func notStartedOrUnreachable_failsFastWithDisconnected() async throws {
        let harness = try TestLoop()
        defer { harness.shutdown() }
        let refusing = try TestSocket.RefusingPort()
        let port = refusing.port
        // A long command timeout, so "fast" is told from "timed out" however loaded the machine.
        let configuration = RedisConfiguration(port: port, commandTimeoutMillis: 60_000)
        let client = RedisClient(configuration: configuration, loop: harness.loop, log: TestEnvironment.log)
        #expect(await attempt(client, ["PING"]).failureValue == .disconnected)
        client.start()
        try await Task.sleep(nanoseconds: 200_000_000)
        let (result, seconds) = await measure { await attempt(client, ["PING"]) }
        #expect(result.failureValue == .disconnected)
        #expect(seconds < 20)  // vs the 60 s command timeout
        #expect(client.isConnected == false)
        client.close()
        withExtendedLifetime(refusing) {}
    }

    @Test func failures_areDeliveredAfterSendReturns() async throws {
        let harness = try TestLoop()
        defer { harness.shutdown() }
        let client = try RedisClient(url: "redis://127.0.0.1:1/0", loop: harness.loop, log: TestEnvironment.log)
        let order: [String] = await harness.run { done in
            var steps: [String] = []
            client.send(["PING"]) { _ in
                steps.append("completion")
                done(steps)
            }
            steps.append("returned")
        }
        #expect(order == ["returned", "completion"])
    }
}
