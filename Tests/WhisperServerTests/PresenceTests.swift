import Foundation
import Testing
import WhisperTesting

/// `presence` over real sockets against real Redis (docs/protocol.md "Presence"): only to
/// online direct peers, on connect and disconnect, with the offline grace period and the
/// per-user minimum interval, across nodes. A node killed outright is in the interop suite
/// (`test_presence.py`), which can `kill -9` a server process.
@Suite(.serialized) struct PresenceTests {
    /// Announcements at once: no grace period, no minimum interval.
    static let immediate = ["WHISPER_PRESENCE_OFFLINE_GRACE_MS": "0", "WHISPER_PRESENCE_MIN_INTERVAL_MS": "0"]

    static func expectPresence(_ frame: [String: Any], of user: String, _ status: String,
                               sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(frame.frameType == "presence", "\(frame)", sourceLocation: sourceLocation)
        #expect(frame["requestId"] == nil, sourceLocation: sourceLocation)
        #expect(frame.payload["whisperId"] as? String == user, sourceLocation: sourceLocation)
        #expect(frame.payload["status"] as? String == status, sourceLocation: sourceLocation)
        let now = Date().timeIntervalSince1970 * 1000
        let timestamp = (frame.payload["timestamp"] as? NSNumber)?.doubleValue ?? 0
        #expect(abs(timestamp - now) < 10_000, "timestamp \(timestamp) vs now \(now)", sourceLocation: sourceLocation)
    }

    /// Every frame `phone` has been sent before the pong of a ping sent now; each must be a
    /// `presence`.
    static func presenceUntilPong(_ phone: Phone) throws -> [[String: Any]] {
        var heard: [[String: Any]] = []
        var frame = try phone.ws.request(["type": "ping", "payload": [String: Any]()])
        while frame.frameType != "pong" {
            expectPresence(frame, of: frame.payload["whisperId"] as? String ?? "?", frame.payload["status"] as? String ?? "?")
            heard.append(frame)
            frame = try phone.ws.receiveJSON()
        }
        return heard
    }

    /// Closes `phone`'s socket and waits until the server has let go of its session.
    static func disconnect(_ phone: Phone, from server: TestServer, leaving count: Double) async {
        phone.ws.socket.close()
        await Messaging.waitForAuthenticated(server, count: count)
    }

    @Test func presence_reachesOnlineDirectPeersOnly_onDisconnectAndConnect() async throws {
        let server = try await TestServer(Self.immediate)
        defer { server.stop() }
        let (alice, bob) = try TypingTests.peers(server, server)
        let stranger = try Phone.online(server)
        await Self.disconnect(alice, from: server, leaving: 2)
        Self.expectPresence(try bob.ws.receiveJSON(), of: alice.id, "offline")
        let back = try Phone.online(server, alice.identity, whisperId: alice.id)
        Self.expectPresence(try bob.ws.receiveJSON(), of: alice.id, "online")
        // Nobody else hears of it; alice gets no presence of her own, and no snapshot of bob's.
        try stranger.expectQuiet()
        try back.expectQuiet()
        try bob.expectQuiet()
    }

    @Test func presence_isNotSent_toAPeerThatIsOffline_norKeptForIt() async throws {
        let server = try await TestServer(Self.immediate)
        defer { server.stop() }
        let (alice, bob) = try TypingTests.peers(server, server)
        await Self.disconnect(bob, from: server, leaving: 1)
        await Self.disconnect(alice, from: server, leaving: 0)
        let bobBack = try Phone.online(server, bob.identity, whisperId: bob.id)
        // Bob logs in after alice left: nothing about her was kept for him.
        try bobBack.expectQuiet()
    }

    @Test func presence_aReconnectWithinTheGracePeriod_isInvisibleToPeers() async throws {
        let server = try await TestServer(["WHISPER_PRESENCE_OFFLINE_GRACE_MS": "1500", "WHISPER_PRESENCE_MIN_INTERVAL_MS": "0"])
        defer { server.stop() }
        let (alice, bob) = try TypingTests.peers(server, server)
        let start = ContinuousClock.now
        await Self.disconnect(alice, from: server, leaving: 1)
        let back = try Phone.online(server, alice.identity, whisperId: alice.id)
        // Back within the grace for sure only if the close and the login took less than it (a
        // starved test may log in later; then offline and online are what bob must hear).
        let inGrace = ContinuousClock.now - start < .milliseconds(1_500)
        try await Task.sleep(nanoseconds: 2_500_000_000)
        if inGrace {
            try bob.expectQuiet()
        } else {
            let heard = try Self.presenceUntilPong(bob)
            #expect(heard.allSatisfy { $0.payload["whisperId"] as? String == alice.id }, "\(heard)")
            #expect(heard.map { $0.payload["status"] as? String }.last ?? "online" == "online", "\(heard)")
        }
        // Away for longer than the grace period: offline, no sooner than the grace allows.
        let left = Date()
        await Self.disconnect(back, from: server, leaving: 1)
        Self.expectPresence(try bob.ws.receiveJSON(), of: alice.id, "offline")
        #expect(Date().timeIntervalSince(left) >= 1.4)
    }

    @Test func presence_aFlappingPhone_isAnnouncedAtMostOncePerInterval_andEndsTrue() async throws {
        let server = try await TestServer(["WHISPER_PRESENCE_OFFLINE_GRACE_MS": "0", "WHISPER_PRESENCE_MIN_INTERVAL_MS": "2000"])
        defer { server.stop() }
        // Alice's login was announced (to nobody yet); she becomes bob's peer, then flaps.
        let start = ContinuousClock.now
        let (first, bob) = try TypingTests.peers(server, server)
        var alice = first
        for _ in 0..<4 {
            await Self.disconnect(alice, from: server, leaving: 1)
            alice = try Phone.online(server, alice.identity, whisperId: alice.id)
        }
        await Self.disconnect(alice, from: server, leaving: 1)
        // The flaps fit in one interval unless a starved test took longer over them.
        let flapsInOneInterval = ContinuousClock.now - start < .milliseconds(2_000)
        // However many flaps: one `offline` when the interval since her login has passed…
        let offline = try bob.ws.receiveJSON()
        Self.expectPresence(offline, of: alice.id, "offline")
        alice = try Phone.online(server, alice.identity, whisperId: alice.id)
        // …and her coming back only a whole interval after that (the server's own timestamps).
        var heard = [offline]
        while heard.last?.payload["status"] as? String != "online" { heard.append(try bob.ws.receiveJSON()) }
        heard += try Self.presenceUntilPong(bob)
        let statuses = heard.map { $0.payload["status"] as? String ?? "?" }
        let stamps = heard.map { ($0.payload["timestamp"] as? NSNumber)?.int64Value ?? 0 }
        #expect(heard.allSatisfy { $0.payload["whisperId"] as? String == alice.id }, "\(heard)")
        #expect(statuses.last == "online" && zip(statuses, statuses.dropFirst()).allSatisfy { $0 != $1 }, "\(statuses)")
        #expect(zip(stamps, stamps.dropFirst()).allSatisfy { $1 - $0 >= 1_900 }, "announcements \(stamps) closer than the interval")
        if flapsInOneInterval { #expect(statuses == ["offline", "online"]) }
    }

    @Test func presence_crossesNodes() async throws {
        let cluster = try await TestCluster(Self.immediate)
        defer { cluster.stop() }
        let (alice, bob) = try TypingTests.peers(cluster.nodeA, cluster.nodeB)
        await Self.disconnect(alice, from: cluster.nodeA, leaving: 0)
        Self.expectPresence(try bob.ws.receiveJSON(), of: alice.id, "offline")
        _ = try Phone.online(cluster.nodeA, alice.identity, whisperId: alice.id)
        Self.expectPresence(try bob.ws.receiveJSON(), of: alice.id, "online")
    }

    @Test func presence_goesBothWays_betweenPeers() async throws {
        let server = try await TestServer(Self.immediate)
        defer { server.stop() }
        let (alice, bob) = try TypingTests.peers(server, server)
        // Bob never sent alice anything, yet the message made them peers of each other.
        await Self.disconnect(bob, from: server, leaving: 1)
        Self.expectPresence(try alice.ws.receiveJSON(), of: bob.id, "offline")
    }
}
