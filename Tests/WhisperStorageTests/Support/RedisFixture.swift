import Foundation
import Testing
import WhisperRuntime
import WhisperStorage

/// A started loop with a connected client on the shared test Redis, and a key prefix
/// unique to the test.
struct RedisFixture {
    let harness: TestLoop
    let client: RedisClient
    let prefix: String
    let url: String

    /// nil (with a recorded issue) when WHISPER_TEST_REDIS_URL is unset or unreachable.
    static func connect(url: String? = nil, configure: (inout RedisConfiguration) -> Void = { _ in }) async throws -> RedisFixture? {
        guard let url = url ?? TestEnvironment.redisURL() else { return nil }
        var configuration = try RedisConfiguration(url: url)
        configure(&configuration)
        let harness = try TestLoop()
        let client = RedisClient(configuration: configuration, loop: harness.loop, log: TestEnvironment.log)
        client.start()
        guard await eventually(within: 10, { client.isConnected }) else {
            Issue.record("could not connect to Redis at \(configuration.redactedDescription)")
            client.close()
            harness.shutdown()
            return nil
        }
        return RedisFixture(harness: harness, client: client, prefix: TestEnvironment.uniqueName("wst"), url: url)
    }

    func key(_ name: String) -> String { prefix + ":" + name }

    func close() {
        client.close()
        harness.shutdown()
    }
}

extension Result {
    var failureValue: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

/// `send` as a Result, for asserting on failures without do/catch noise.
func attempt(_ client: RedisClient, _ arguments: [String]) async -> Result<RedisValue, RedisError> {
    do { return .success(try await client.send(arguments)) } catch { return .failure(error) }
}
