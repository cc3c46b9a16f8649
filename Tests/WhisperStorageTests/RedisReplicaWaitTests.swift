import Foundation
import Testing
import WhisperOps
import WhisperRuntime
@testable import WhisperStorage
import WhisperTesting

/// `evalScript(_:then:reading:completion:)` on the real Redis Cluster of scripts/test (each primary
/// has a replica): the script and its `WAIT` run on the primary of the script's keys, and `WAIT`
/// counts that primary's replica — also after a `MOVED` sends the pair to another primary.
@Suite("Script + WAIT on a real Redis Cluster", .serialized)
struct RedisReplicaWaitTests {
    private static let script = RedisScript(source: """
        redis.call('SET', KEYS[1], ARGV[1])
        return redis.call('GET', KEYS[1])
        """)
    private static let wait = RedisReplicaWait(replicas: 1, timeoutMillis: 2000)

    /// Runs `script` on `key` with `WAIT` behind it: the script's reply and the replica count.
    private static func run(_ cluster: RedisClusterFixture, key: String, value: String) async -> (RedisValue?, Int?) {
        let call = RedisScriptCall(script, keys: [Array(key.utf8)], arguments: [Array(value.utf8)])
        let client = cluster.client
        let (reply, replicas): (RedisValue?, Int?) = await cluster.harness.run { done in
            client.evalScript(call, then: wait, reading: { try? $0.get().value }) { reply, replicas in done((reply, replicas)) }
        }
        return (reply, replicas)
    }

    @Test func onEveryPrimary_theScriptRunsThere_andWaitCountsItsReplica() async throws {
        let cluster = try await RedisClusterFixture.connect()
        defer { cluster.close() }
        let tags = cluster.tagsOnEveryPrimary(try await cluster.map())
        #expect(tags.count == 3)
        for (tag, primary) in tags {
            let key = cluster.key(tag, "waited")
            let (reply, replicas) = await Self.run(cluster, key: key, value: tag)
            #expect(reply == .bulk(Array(tag.utf8)))
            #expect((replicas ?? 0) >= 1, "WAIT reported \(String(describing: replicas)) on \(primary)")
            #expect(try await redisCLI(primary, ["GET", key]) == tag)
        }
    }

    @Test func afterMoved_thePairIsSentAgainToTheNewPrimary() async throws {
        let cluster = try await RedisClusterFixture.connect()
        defer { cluster.close() }
        let map = try await cluster.map()
        let key = cluster.key("waitmoved", "a")
        let slot = RedisSlot.of(key)
        let source = try #require(map.primary(forSlot: slot))
        let target = try #require(map.primaries.first { $0 != source })
        try #require(try await redisCLI(source, ["CLUSTER", "COUNTKEYSINSLOT", String(slot)]) == "0")
        // The client learns the map before the slot moves behind its back.
        #expect(try await cluster.client.send(["GET", key]) == .bulk(nil))
        let sourceID = try await redisCLI(source, ["CLUSTER", "MYID"])
        let targetID = try await redisCLI(target, ["CLUSTER", "MYID"])
        try await redisCLI(target, ["CLUSTER", "SETSLOT", String(slot), "IMPORTING", sourceID])
        try await redisCLI(source, ["CLUSTER", "SETSLOT", String(slot), "MIGRATING", targetID])
        for node in [target, source] + map.primaries.filter({ $0 != source && $0 != target }) {
            try await redisCLI(node, ["CLUSTER", "SETSLOT", String(slot), "NODE", targetID])
        }
        let movedBefore = try await errorCount(source, "MOVED")

        let (reply, replicas) = await Self.run(cluster, key: key, value: "moved")
        // Usually through one MOVED from the old owner; a periodic map refresh of a slow run may
        // learn the move first. Either way the pair must land on the new primary, with its WAIT.
        let viaMoved = try await errorCount(source, "MOVED") > movedBefore
        print("script + WAIT: reached the new primary \(viaMoved ? "through MOVED" : "after a map refresh")")
        #expect(reply == .bulk(Array("moved".utf8)))
        #expect((replicas ?? 0) >= 1, "WAIT reported \(String(describing: replicas)) after MOVED")
        #expect(try await redisCLI(target, ["GET", key]) == "moved")
    }
}
