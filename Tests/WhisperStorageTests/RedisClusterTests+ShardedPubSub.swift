import Foundation
import Testing
import WhisperRuntime
@testable import WhisperStorage
import WhisperTesting

/// How the sharded subscriptions follow slots that move (`RedisShardedSubscriptions`), on the
/// shared cluster: part of `RedisClusterTests` so that they run serialized with its migration
/// test (they move slots too, and count the nodes' `MOVED` answers).
extension RedisClusterTests {
    @Test func ssubscribeAnsweredMoved_followsToTheOwner_keepingTheConnectionAndItsOtherChannels() async throws {
        let cluster = try await RedisClusterFixture.connect()
        defer { cluster.close() }
        let map = try await cluster.map()
        let (source, tags) = try #require(cluster.tagsInTwoSlotsOfOnePrimary(map))
        let target = try #require(map.primaries.first { $0 != source })
        let kept = cluster.key(tags[0], "events"), moving = cluster.key(tags[1], "events")
        let subscriber = RedisSubscriber(configuration: cluster.client.configuration, loop: cluster.harness.loop,
                                         log: TestEnvironment.log)
        defer { subscriber.close() }
        let inbox = MessageInbox()
        cluster.harness.loop.execute { subscriber.subscribe(kept) { inbox.append($0) } }
        subscriber.start()
        #expect(await eventually(within: 10) { await receivers(source, kept) == 1 })

        // The slot of `moving` leaves `source` while nobody subscribes it: no node tells the
        // subscriber, whose map (read at its start) still names `source`.
        try await moveSlot(of: moving, from: source, to: target, map: map)
        let movedBefore = try await errorCount(source, "MOVED")
        let (followed, seconds) = await measure {
            cluster.harness.loop.execute { subscriber.subscribe(moving) { inbox.append($0) } }
            return await eventually(within: 3, every: 0.02) { await receivers(target, moving) == 1 }
        }
        #expect(followed)
        print("sharded pub/sub: an SSUBSCRIBE answered MOVED reached the owner after \(String(format: "%.3f", seconds)) s")
        // Usually through a MOVED from the stale owner; a periodic map refresh of a slow run may
        // have learned the move first, which is fine too: what counts is following without a
        // reconnect.
        let viaMoved = try await errorCount(source, "MOVED") > movedBefore
        print("sharded pub/sub: followed \(viaMoved ? "through MOVED" : "after a map refresh")")
        // Same connection, same channels: the refusal cost nothing else.
        #expect(subscriber.reconnectCount == 0)
        #expect(await receivers(source, kept) == 1)
        #expect(try await cluster.client.send(["SPUBLISH", kept, "still here"]) == .integer(1))
        #expect(try await cluster.client.send(["SPUBLISH", moving, "moved here"]) == .integer(1))
        #expect(await eventually(within: 2) { inbox.contains(Array("still here".utf8)) && inbox.contains(Array("moved here".utf8)) })
    }

    @Test func subscribedSlotMigratedAway_theSubscriberFollowsAtOnce() async throws {
        let cluster = try await RedisClusterFixture.connect()
        defer { cluster.close() }
        let map = try await cluster.map()
        let (source, tags) = try #require(cluster.tagsInTwoSlotsOfOnePrimary(map))
        let target = try #require(map.primaries.first { $0 != source })
        let staying = cluster.key(tags[0], "events"), moving = cluster.key(tags[1], "events")
        let subscriber = RedisSubscriber(configuration: cluster.client.configuration, loop: cluster.harness.loop,
                                         log: TestEnvironment.log)
        defer { subscriber.close() }
        let inbox = MessageInbox()
        cluster.harness.loop.execute {
            subscriber.subscribe(staying) { inbox.append($0) }
            subscriber.subscribe(moving) { inbox.append($0) }
        }
        subscriber.start()
        for channel in [staying, moving] {
            #expect(await eventually(within: 10) { await receivers(source, channel) == 1 })
        }

        // `source` pushes `sunsubscribe` for `moving` when the slot leaves it; the periodic map
        // refresh (every 10 s) is not what moves it.
        let (followed, seconds) = await measure {
            do { try await moveSlot(of: moving, from: source, to: target, map: map) } catch { return false }
            return await eventually(within: 3, every: 0.02) { await receivers(target, moving) == 1 }
        }
        #expect(followed)
        print("sharded pub/sub: the subscriber followed a migrated slot after \(String(format: "%.3f", seconds)) s")
        #expect(subscriber.reconnectCount == 0)
        #expect(await receivers(source, staying) == 1)
        #expect(try await cluster.client.send(["SPUBLISH", moving, "after the move"]) == .integer(1))
        #expect(await eventually(within: 2) { inbox.contains(Array("after the move".utf8)) })
    }

    @Test func channelsOfTwoSlotsOnOnePrimary_areSubscribedAtConnect_withoutCrossSlot() async throws {
        let cluster = try await RedisClusterFixture.connect()
        defer { cluster.close() }
        let (primary, tags) = try #require(cluster.tagsInTwoSlotsOfOnePrimary(try await cluster.map()))
        let channels = tags.map { cluster.key($0, "events") }
        let crossSlotBefore = try await errorCount(primary, "CROSSSLOT")
        let subscriber = RedisSubscriber(configuration: cluster.client.configuration, loop: cluster.harness.loop,
                                         log: TestEnvironment.log)
        defer { subscriber.close() }
        // Both known before the link is ready: it subscribes them together.
        cluster.harness.loop.execute { for channel in channels { subscriber.subscribe(channel) { _ in } } }
        subscriber.start()
        for channel in channels {
            #expect(await eventually(within: 10) { await receivers(primary, channel) == 1 }, "\(channel)")
        }
        #expect(try await errorCount(primary, "CROSSSLOT") == crossSlotBefore)
        #expect(subscriber.reconnectCount == 0)
    }

    /// On a cluster of its own: it counts the connections each primary received, which the
    /// servers that other suites start on the shared cluster would add to.
    @Test func subscriberSharingTheClientsMap_opensOnlyItsSubscriberConnections() async throws {
        try await withPrivateCluster { url, _ in
            let cluster = try await RedisClusterFixture.connect(url: url)
            defer { cluster.close() }
            let map = try await cluster.map()
            let channels = cluster.tagsOnEveryPrimary(map).map { cluster.key($0.tag, "events") }
            #expect(await eventually(within: 10) { cluster.client.isConnected })
            let before = try await connectionsReceived(map.primaries)
            let subscriber = RedisSubscriber(configuration: cluster.client.configuration, loop: cluster.harness.loop,
                                             mapFrom: cluster.client, log: TestEnvironment.log)
            defer { subscriber.close() }
            let inbox = MessageInbox()
            cluster.harness.loop.execute { for channel in channels { subscriber.subscribe(channel) { inbox.append($0) } } }
            subscriber.start()
            for channel in channels {
                #expect(await eventually(within: 10) {
                    (try? await cluster.client.send(["SPUBLISH", channel, "hello \(channel)"])) == .integer(1)
                }, "\(channel)")
                #expect(await eventually(within: 2) { inbox.contains(Array("hello \(channel)".utf8)) })
            }
            #expect(subscriber.isConnected)
            // Past a watch tick of the shared map; a map of its own would have connected to every primary.
            try await Task.sleep(nanoseconds: 1_200_000_000)
            let after = try await connectionsReceived(map.primaries)
            // Per primary: the subscriber connection, and redis-cli's own for this count.
            #expect(zip(before, after).map { $1 - $0 } == map.primaries.map { _ in 2 })
        }
    }
}

/// `total_connections_received` of each node (`INFO stats`; redis-cli's own connection included).
func connectionsReceived(_ nodes: [RedisNodeAddress]) async throws -> [Int] {
    var counts: [Int] = []
    for node in nodes {
        let info = try await redisCLI(node, ["INFO", "stats"])
        let line = info.split(whereSeparator: \.isNewline).first { $0.hasPrefix("total_connections_received:") }
        counts.append(line.flatMap { Int($0.dropFirst("total_connections_received:".count).prefix { $0.isNumber }) } ?? -1)
    }
    return counts
}

extension RedisClusterFixture {
    /// A primary and two tags of this test whose keys are in two different slots it owns.
    func tagsInTwoSlotsOfOnePrimary(_ map: RedisClusterMap) -> (RedisNodeAddress, [String])? {
        var first: [RedisNodeAddress: String] = [:]
        for index in 0..<10_000 {
            let tag = "s\(index)"
            guard let owner = map.primary(forSlot: RedisSlot.of(key(tag, "events"))) else { continue }
            guard let earlier = first[owner] else {
                first[owner] = tag
                continue
            }
            if RedisSlot.of(key(earlier, "events")) != RedisSlot.of(key(tag, "events")) { return (owner, [earlier, tag]) }
        }
        return nil
    }
}

/// Gives the (empty) slot of `key` to `target` as a resharding does: `IMPORTING` on the target and
/// `MIGRATING` on the source first (so that the target's `NODE` bumps its config epoch and the
/// cluster agrees on the new owner), then `NODE` on the target, the source (which drops the slot
/// and its sharded subscribers) and the other primaries.
func moveSlot(of key: String, from source: RedisNodeAddress, to target: RedisNodeAddress, map: RedisClusterMap) async throws {
    let slot = String(RedisSlot.of(key))
    let targetID = try await redisCLI(target, ["CLUSTER", "MYID"])
    let sourceID = try await redisCLI(source, ["CLUSTER", "MYID"])
    try await redisCLI(target, ["CLUSTER", "SETSLOT", slot, "IMPORTING", sourceID])
    try await redisCLI(source, ["CLUSTER", "SETSLOT", slot, "MIGRATING", targetID])
    for node in [target, source] + map.primaries.filter({ $0 != source && $0 != target }) {
        try await redisCLI(node, ["CLUSTER", "SETSLOT", slot, "NODE", targetID])
    }
}
