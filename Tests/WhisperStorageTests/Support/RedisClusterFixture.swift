import Foundation
import Testing
import WhisperOps
import WhisperRuntime
@testable import WhisperStorage
import WhisperTesting

/// A started loop with a cluster-mode `RedisClient` on the run's Redis Cluster
/// (`WHISPER_TEST_REDIS_CLUSTER_URL`, from scripts/test) or on `url`, and `redis-cli` for
/// what the test does to the nodes themselves.
struct RedisClusterFixture {
    let harness: TestLoop
    let client: RedisClient
    let prefix: String

    static var sharedURL: String {
        get throws {
            guard let url = ProcessInfo.processInfo.environment["WHISPER_TEST_REDIS_CLUSTER_URL"], !url.isEmpty else {
                throw RedisFixtureError(description: "WHISPER_TEST_REDIS_CLUSTER_URL is not set: run through scripts/test, "
                                            + "which starts a Redis Cluster (scripts/lib/redis.sh redis_cluster_start)")
            }
            return url
        }
    }

    static func connect(url: String? = nil, configure: (inout RedisConfiguration) -> Void = { _ in }) async throws -> RedisClusterFixture {
        var endpoint = try RedisEndpoint.parse(try url ?? sharedURL)
        endpoint.cluster = true
        var configuration = RedisConfiguration(endpoint: endpoint)
        configure(&configuration)
        let (harness, client) = try await RedisFixture.started(configuration)
        return RedisClusterFixture(harness: harness, client: client, prefix: TestEnvironment.uniqueName("wsc"))
    }

    func close() {
        client.close()
        harness.shutdown()
    }

    /// A key of this test whose hash tag is `tag`.
    func key(_ tag: String, _ name: String = "k") -> String { "{\(prefix):\(tag)}:\(name)" }

    /// The cluster's map as the cluster states it now (through the client: a keyless command).
    func map() async throws -> RedisClusterMap {
        try RedisClusterMap.parse(slots: try await client.send(["CLUSTER", "SLOTS"]),
                                  answeredBy: RedisNodeAddress(host: "127.0.0.1", port: 0)).get()
    }

    /// Tags of this test whose keys land on `count` different primaries, one per primary.
    func tagsOnEveryPrimary(_ map: RedisClusterMap) -> [(tag: String, primary: RedisNodeAddress)] {
        var found: [RedisNodeAddress: String] = [:]
        var index = 0
        while found.count < map.primaries.count, index < 10_000 {
            let tag = "t\(index)"
            if let primary = map.primary(forSlot: RedisSlot.of(key(tag))), found[primary] == nil { found[primary] = tag }
            index += 1
        }
        return found.map { (tag: $0.value, primary: $0.key) }.sorted { $0.primary.port < $1.primary.port }
    }
}

/// `redis-cli` against one node, without cluster redirection (`-c` is not given): what the node
/// itself answers.
@discardableResult
func redisCLI(_ node: RedisNodeAddress, _ arguments: [String]) async throws -> String {
    try await Subprocess.run("/usr/bin/redis-cli", ["-h", node.host, "-p", String(node.port)] + arguments)
        .trimmingCharacters(in: .whitespacesAndNewlines)
}
