import Foundation

/// Two whole servers in one cluster: both on the test Redis under one key prefix of their
/// own, so sessions, revocations and live deliveries cross from one node to the other.
public final class TestCluster: Sendable {
    public let prefix: String
    public let nodeA: TestServer
    public let nodeB: TestServer

    /// Starts both nodes and waits until each listens on the revocation channel and has
    /// published its node key; throws if they do not come up within 10 s.
    public init(_ overrides: [String: String] = [:]) async throws {
        let prefix = "test-\(UUID().uuidString.prefix(8).lowercased()):"
        var environment = overrides
        environment["WHISPER_REDIS_PREFIX"] = prefix
        let nodeA = try await TestServer(environment)
        let nodeB: TestServer
        do {
            nodeB = try await TestServer(environment)
            if TestEnvironment.serversOnCluster || environment["WHISPER_REDIS_CLUSTER"] == "1" {
                try await Self.waitUntilReady([nodeA, nodeB])
            } else {
                try await Self.waitForNodes(prefix: prefix, count: 2)
            }
        } catch {
            nodeA.stop()
            throw error
        }
        self.prefix = prefix
        self.nodeA = nodeA
        self.nodeB = nodeB
    }

    public func stop() {
        nodeA.stop()
        nodeB.stop()
    }

    /// On a Redis Cluster (sharded subscriptions, keys on three shards): each node's `/ready`,
    /// which answers 200 once its subscriber delivers its own canary and its heartbeat is written.
    private static func waitUntilReady(_ nodes: [TestServer]) async throws {
        let up = await eventually(within: 10) {
            nodes.allSatisfy { node in (try? TestHTTP.get(port: node.adminPort, "/ready"))?.status == 200 }
        }
        guard up else { throw TestSocket.Failure.io("the nodes did not become ready on the Redis Cluster within 10 s") }
    }

    private static func waitForNodes(prefix: String, count: Int) async throws {
        let redis = try TestRedis(url: try TestEnvironment.redisURL)
        let up = await eventually(within: 10) {
            guard case .array(let reply)? = try? redis.command(["PUBSUB", "NUMSUB", prefix + "session-revocations"]),
                  reply.count == 2, case .integer(let subscribers) = reply[1], subscribers >= count,
                  case .array(let nodes)? = try? redis.command(["KEYS", prefix + "node:*"])
            else { return false }
            return nodes.count >= count
        }
        guard up else { throw TestSocket.Failure.io("the \(count) nodes of \(prefix) did not come up within 10 s") }
    }
}
