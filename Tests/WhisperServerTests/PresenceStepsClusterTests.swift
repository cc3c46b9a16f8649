import Foundation
import Testing
import WhisperProtocol
import WhisperServices
import WhisperStorage
import WhisperStores
import WhisperTesting

/// Presence on the real 3-primary + 3-replica Redis Cluster scripts/test starts: the user's,
/// each peer's, the node's and the singletons' steps (`PresenceScripts`), with users spread
/// over slots (on one Redis, PresenceTests and the interop suite prove the same steps).
@Suite("Presence steps on a real Redis Cluster") struct PresenceStepsClusterTests {
    @Test func online_announcesToPeersHere_publishesToPeersElsewhere_andSkipsWhoBlockedTheUser() async throws {
        let cluster = try await ClusterStores()
        defer { cluster.close() }
        let presence = OnLoop(RedisPresence(redis: cluster.redis, keys: cluster.keys, node: cluster.node, limits: cluster.limits))
        let (user, here, elsewhere, blocker) = (WhisperID.random(), WhisperID.random(), WhisperID.random(), WhisperID.random())
        let otherNode = "0ther" + String(UInt32.random(in: 0...UInt32.max), radix: 16)
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        for peer in [here, elsewhere, blocker] {
            try await cluster.command(["ZADD", cluster.keys.peers(user), now, peer.string])
        }
        try await cluster.command(["SET", cluster.keys.route(here), "\(cluster.node):0:5"])
        try await cluster.command(["SET", cluster.keys.route(elsewhere), "\(otherNode):1:6"])
        try await cluster.command(["SET", cluster.keys.route(blocker), "\(cluster.node):0:7"])
        try await cluster.command(["SADD", cluster.keys.blocked(blocker), user.string])
        try await cluster.command(["RPUSH", cluster.keys.events(user), "kept"])
        let inbox = try await cluster.subscribe(cluster.keys.deliveryChannel(otherNode))
        defer { inbox.close() }

        let route = LiveRoute(node: cluster.node, loop: 0, connection: 9)
        let arrival = try await cluster.loop.result { done in presence.store.online(user, at: route, completion: done) }
        #expect(arrival.events == [Array("kept".utf8)])
        #expect(!arrival.hasHeldCalls)
        // Read, not taken: the events stay until they were written to the socket; one kept
        // meanwhile stays after that, and forgetting them again (another login's) changes nothing.
        try await cluster.command(["RPUSH", cluster.keys.events(user), "later"])
        let queue = { try await cluster.command(["LRANGE", cluster.keys.events(user), 0, -1]).array?.compactMap(\.string) }
        #expect(try await queue() == ["kept", "later"])
        for _ in 0..<2 {
            try await cluster.loop.result { done in presence.store.forgetEvents(user, arrival.events, completion: done) }
            #expect(try await queue() == ["later"])
        }
        let announcement = try #require(arrival.announcement)
        #expect(announcement.peers.map(\.user) == [here])
        #expect(announcement.peers.map(\.route) == [LiveRoute(node: cluster.node, loop: 0, connection: 5)])
        #expect(String(decoding: announcement.frame, as: UTF8.self).contains("\"status\":\"online\""))
        let published = try #require(await inbox.next())
        #expect(String(decoding: published, as: UTF8.self).hasPrefix("\(otherNode):1:6 \(elsewhere.string) s 0\n"))
        #expect(try await cluster.command(["GET", cluster.keys.route(user)]).string == route.text)
        #expect(try await cluster.command(["SISMEMBER", cluster.keys.nodeUsers(cluster.node), user.string]) == .integer(1))

        // Leaving within the minimum interval: not announced now, due later.
        let left = try await cluster.loop.result { done in presence.store.offline(user, at: route, completion: done) }
        #expect(left == nil)
        #expect(try await cluster.command(["EXISTS", cluster.keys.route(user)]) == .integer(0))
        #expect(try await cluster.command(["ZSCORE", cluster.keys.presenceDue, user.string]).string != nil)
        #expect(try await cluster.command(["SISMEMBER", cluster.keys.nodeUsers(cluster.node), user.string]) == .integer(0))

        // A socket that lost the route to a newer login leaves: nothing of the newer one changes.
        let newer = LiveRoute(node: cluster.node, loop: 1, connection: 10)
        _ = try await cluster.loop.result { done in presence.store.online(user, at: newer, completion: done) }
        let due = try await cluster.command(["ZSCORE", cluster.keys.presenceDue, user.string])
        #expect(try await cluster.loop.result { done in presence.store.offline(user, at: route, completion: done) } == nil)
        #expect(try await cluster.command(["GET", cluster.keys.route(user)]).string == newer.text)
        #expect(try await cluster.command(["SISMEMBER", cluster.keys.nodeUsers(cluster.node), user.string]) == .integer(1))
        #expect(try await cluster.command(["ZSCORE", cluster.keys.presenceDue, user.string]) == due)
    }

    @Test func sweep_takesADeadNodesUsersOffline_andTellsTheirPeers() async throws {
        let cluster = try await ClusterStores()
        defer { cluster.close() }
        let presence = OnLoop(RedisPresence(redis: cluster.redis, keys: cluster.keys, node: cluster.node, limits: cluster.limits))
        let dead = "dead" + String(UInt32.random(in: 0...UInt32.max), radix: 16)
        let (user, peer, movedOn) = (WhisperID.random(), WhisperID.random(), WhisperID.random())
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        // `user` was held by the dead node and its peers were told it is online; `movedOn` was
        // too, but logged in again here since.
        try await cluster.command(["ZADD", cluster.keys.nodes, 0, dead])
        try await cluster.command(["SADD", cluster.keys.nodeUsers(dead), user.string, movedOn.string])
        try await cluster.command(["SET", cluster.keys.route(user), "\(dead):0:1"])
        try await cluster.command(["SET", cluster.keys.route(movedOn), "\(cluster.node):0:2"])
        for someone in [user, movedOn] {
            try await cluster.command(["HSET", cluster.keys.presence(someone), "s", "online", "t", 0])
            try await cluster.command(["ZADD", cluster.keys.peers(someone), now, peer.string])
        }
        try await cluster.command(["SET", cluster.keys.route(peer), "\(cluster.node):0:3"])

        let announcements = try await cluster.loop.result { done in presence.store.sweep(completion: done) }
        #expect(announcements.count == 1)
        #expect(announcements.first?.peers.map(\.user) == [peer])
        #expect(announcements.first.map { String(decoding: $0.frame, as: UTF8.self) }?.contains(user.string) == true)
        #expect(announcements.first.map { String(decoding: $0.frame, as: UTF8.self) }?.contains("\"status\":\"offline\"") == true)
        #expect(try await cluster.command(["EXISTS", cluster.keys.route(user)]) == .integer(0))
        #expect(try await cluster.command(["GET", cluster.keys.route(movedOn)]).string == "\(cluster.node):0:2")
        #expect(try await cluster.command(["ZSCORE", cluster.keys.nodes, dead]) == .bulk(nil))
        // Nothing is left to announce: a second sweep is quiet.
        #expect(try await cluster.loop.result { done in presence.store.sweep(completion: done) }.isEmpty)
    }
}
