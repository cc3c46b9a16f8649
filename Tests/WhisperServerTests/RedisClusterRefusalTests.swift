import Testing
import WhisperOps
import WhisperTesting

/// WhisperStorage has a cluster client, but the stores' keys and scripts are not one-slot yet
/// (issue #27): until they are, the server says so at start-up instead of failing per command.
@Suite struct RedisClusterRefusalTests {
    @Test func server_refusesRedisClusterAtStartUp_namingTheIssue() async throws {
        do {
            let server = try await TestServer(["WHISPER_REDIS_URL": "redis://127.0.0.1:1,127.0.0.1:2/",
                                               "WHISPER_REDIS_CLUSTER": "1"])
            server.stop()
            Issue.record("the server started on a Redis Cluster configuration")
        } catch let error as ConfigError {
            #expect(error.variable == "WHISPER_REDIS_CLUSTER")
            #expect(error.description.contains("issue #27"))
        }
    }
}
