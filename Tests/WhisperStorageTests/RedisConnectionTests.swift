import Testing
import WhisperRuntime
@testable import WhisperStorage
import WhisperTesting

/// What a bare `RedisConnection` decides on its own, against the shared test Redis.
@Suite("RedisConnection against a real server")
struct RedisConnectionTests {
    @Test func aReplyPastTheInputLimit_closesTheConnection_andFailsItsCommand() async throws {
        let redis = try await RedisFixture.connect()
        defer { redis.close() }
        let key = redis.key("big")
        #expect(try await redis.client.send([Array("SET".utf8), Array(key.utf8), Array(repeating: 1, count: 1 << 20)])
                == .status("OK"))
        let raw = try #require(try await RawRedisConnection.open(redis.client.configuration, on: redis.harness,
                                                                 bufferLimit: 64 << 10))
        let reply = await raw.run { (connection, done: @escaping @Sendable (RedisError?) -> Void) in
            let sent = connection.send([Array("GET".utf8), Array(key.utf8)]) { done($0.failureValue) }
            if !sent { done(.invalidCommand("not sent")) }
        }
        #expect(reply == .disconnected)
        #expect(await eventually(within: 5) { raw.closeReason == "a reply exceeds the 65536-byte input limit" })
        // Under a limit that holds it, the same reply arrives whole over many reads.
        let roomy = try #require(try await RawRedisConnection.open(redis.client.configuration, on: redis.harness,
                                                                   bufferLimit: 2 << 20))
        let length = await roomy.run { (connection, done: @escaping @Sendable (Int) -> Void) in
            _ = connection.send([Array("GET".utf8), Array(key.utf8)]) { result in
                guard case .success(let reply) = result, case .bulk(let bytes?) = reply.value else { return done(-1) }
                done(bytes.count)
            }
        }
        #expect(length == 1 << 20)
        await roomy.close()
        _ = try await redis.client.send(["DEL", key])
    }

    @Test func commandsPastTheOutputLimit_areRefused_andCloseTheConnection() async throws {
        let redis = try await RedisFixture.connect()
        defer { redis.close() }
        let raw = try #require(try await RawRedisConnection.open(redis.client.configuration, on: redis.harness,
                                                                 bufferLimit: 64 << 10))
        let key = Array(redis.key("never").utf8)
        let sent = await raw.run { (connection, done: @escaping @Sendable (Bool) -> Void) in
            done(connection.send([Array("SET".utf8), key, Array(repeating: 2, count: 128 << 10)]) { _ in })
        }
        #expect(sent == false)
        #expect(await eventually(within: 5) { raw.closeReason == "commands past the 65536-byte output limit" })
        #expect(try await redis.client.send([Array("EXISTS".utf8), key]) == .integer(0))
    }
}
