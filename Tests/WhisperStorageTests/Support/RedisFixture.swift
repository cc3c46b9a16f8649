import Foundation
import Testing
import WhisperRuntime
import WhisperStorage
import WhisperTesting

/// A started loop with a connected client on the shared test Redis (or `url`), and a key
/// prefix unique to the test. `connect` throws, leaving nothing behind, when the URL is
/// missing or the server does not answer.
struct RedisFixture {
    let harness: TestLoop
    let client: RedisClient
    let prefix: String
    let url: String

    static func connect(url: String? = nil, configure: (inout RedisConfiguration) -> Void = { _ in }) async throws -> RedisFixture {
        let url = try url ?? TestEnvironment.redisURL
        var configuration = try RedisConfiguration(url: url)
        configure(&configuration)
        let (harness, client) = try await started(configuration)
        return RedisFixture(harness: harness, client: client, prefix: TestEnvironment.uniqueName("wst"), url: url)
    }

    /// A loop and a client on it, connected (cluster: with a slot map), or throws having
    /// closed both.
    static func started(_ configuration: RedisConfiguration) async throws -> (TestLoop, RedisClient) {
        let harness = try TestLoop()
        let client = RedisClient(configuration: configuration, loop: harness.loop, log: TestEnvironment.log)
        client.start()
        guard await eventually(within: 10, { client.isConnected }) else {
            client.close()
            harness.shutdown()
            throw RedisFixtureError(description: "could not connect to Redis at \(configuration.redactedDescription)")
        }
        return (harness, client)
    }

    func key(_ name: String) -> String { prefix + ":" + name }

    func close() {
        client.close()
        harness.shutdown()
    }
}

struct RedisFixtureError: Error, CustomStringConvertible {
    let description: String
}

/// `send` as a Result, for asserting on failures without do/catch noise.
func attempt(_ client: RedisClient, _ arguments: [String]) async -> Result<RedisValue, RedisError> {
    do { return .success(try await client.send(arguments)) } catch { return .failure(error) }
}

/// A fresh script's first call (it reads `key`) and a `SET` of `key` sent right behind it in
/// one go on the loop: what the script read. In order, it saw the key before the `SET`.
func firstCallThenSet(_ client: RedisClient, on loop: EventLoop, key: String, unique: String) async -> Result<RedisValue, RedisError> {
    let script = RedisScript(source: "-- \(unique)\nreturn redis.call('GET', KEYS[1])")
    return await withCheckedContinuation { continuation in
        loop.execute {
            client.evalScript(script, keys: [Array(key.utf8)], arguments: []) { continuation.resume(returning: $0) }
            client.send([Array("SET".utf8), Array(key.utf8), Array("after".utf8)]) { _ in }
        }
    }
}
