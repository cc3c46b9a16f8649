import Foundation
import Testing
import WhisperTesting

/// Blocking frames as a phone sends them (docs/protocol.md "Blocking").
extension Phone {
    func block(_ other: String, requestId: String = "b") throws -> [String: Any] {
        try ws.request(TestWebSocket.privilegedFrame("block", token: token, requestId: requestId, extra: ["whisperId": other]))
    }

    func unblock(_ other: String, requestId: String = "u") throws -> [String: Any] {
        try ws.request(TestWebSocket.privilegedFrame("unblock", token: token, requestId: requestId, extra: ["whisperId": other]))
    }

    /// Blocks `other`, expecting `blocked {whisperId}` with the frame's requestId.
    func blocked(_ other: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let reply = try block(other)
        #expect(reply.frameType == "blocked", "\(reply)", sourceLocation: sourceLocation)
        #expect(reply["requestId"] as? String == "b", sourceLocation: sourceLocation)
        #expect(reply.payload as NSDictionary == ["whisperId": other] as NSDictionary, sourceLocation: sourceLocation)
    }

    /// Unblocks `other`, expecting `unblocked {whisperId}`.
    func unblocked(_ other: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let reply = try unblock(other)
        #expect(reply.frameType == "unblocked", "\(reply)", sourceLocation: sourceLocation)
        #expect(reply.payload as NSDictionary == ["whisperId": other] as NSDictionary, sourceLocation: sourceLocation)
    }

    /// `blocks_list` → the ids of `blocks`.
    func blockList(sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
        let reply = try ws.request(TestWebSocket.privilegedFrame("blocks_list", token: token, requestId: "l"))
        #expect(reply.frameType == "blocks", "\(reply)", sourceLocation: sourceLocation)
        #expect(reply["requestId"] as? String == "l", sourceLocation: sourceLocation)
        return reply.payload["whisperIds"] as? [String] ?? ["<no whisperIds>"]
    }
}

enum Blocking {
    /// The members of `user`'s `blocked:{user}` set on `server`'s Redis, sorted; nil when the key does not exist.
    static func redisCopy(_ server: TestServer, of user: String) throws -> [String]? {
        let redis = try Identity.redis()
        let key = server.config.redisPrefix + "blocked:{" + user + "}"
        guard case .integer(1) = try redis.command(["EXISTS", key]) else { return nil }
        guard case .array(let members) = try redis.command(["SMEMBERS", key]) else { return ["<not a set>"] }
        return members.compactMap(\.text).sorted()
    }

    /// Waits until `user`'s Redis copy is `expected` (nil: no key): `block` and `unblock` answer
    /// after writing it, and a login rewrites it before its `register_ack`, so it holds at once.
    static func expectRedisCopy(_ server: TestServer, of user: String, _ expected: [String]?,
                                sourceLocation: SourceLocation = #_sourceLocation) async {
        let sorted = expected?.sorted()
        let reached = await eventually(within: 5) { (try? redisCopy(server, of: user)) == sorted }
        #expect(reached, "blocked:{\(user)} is \(String(describing: try? redisCopy(server, of: user))), expected \(String(describing: sorted))",
                sourceLocation: sourceLocation)
    }

    /// Deletes every Redis key of `server` (its prefix): what a Redis that lost its data looks
    /// like to it, without touching the keys of tests running beside this one.
    static func flushRedis(of server: TestServer) throws {
        let redis = try Identity.redis()
        for key in try redis.keys(prefix: server.config.redisPrefix) { _ = try redis.command(["DEL", key]) }
    }

    /// Waits until the call's state is in Redis: its offer was through the call script.
    static func expectCallStored(_ server: TestServer, _ callId: String, sourceLocation: SourceLocation = #_sourceLocation) async {
        let key = server.config.redisPrefix + "call:{" + callId + "}"
        let stored = await eventually { (try? Identity.redis().command(["EXISTS", key])) == .integer(1) }
        #expect(stored, "no \(key)", sourceLocation: sourceLocation)
    }

    /// Whether `key` (without the prefix) exists in `server`'s Redis.
    static func exists(_ server: TestServer, _ key: String) throws -> Bool {
        try Identity.redis().command(["EXISTS", server.config.redisPrefix + key]) == .integer(1)
    }

    /// Bob online, and alice, who blocked him, with a socket the server has seen close.
    static func offlineBlocker(_ server: TestServer) async throws -> (blocked: Phone, blocker: Phone) {
        let bob = try Phone.online(server), alice = try Phone.online(server)
        try alice.blocked(bob.id)
        alice.ws.socket.close()
        await Messaging.waitForAuthenticated(server, count: 1)
        return (bob, alice)
    }

    /// `blocker` logs in again while `caller`'s call rings for it: once its login is through
    /// (route set, held offers looked up) nothing has reached it, the call times out for the
    /// caller, and its `call_end` does not reach the blocker either.
    static func expectNothingAtLogin(_ server: TestServer, _ blocker: Phone, callId: String, from caller: Phone,
                                     sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let back = try Phone.online(server, blocker.identity, whisperId: blocker.id)
        #expect(await eventually { (try? exists(server, "route:{" + blocker.id + "}")) == true }, sourceLocation: sourceLocation)
        try await Task.sleep(nanoseconds: 300_000_000)
        try back.expectQuiet()
        #expect(try caller.expectCall("call_end", callId: callId).payload["reason"] as? String == "timeout",
                sourceLocation: sourceLocation)
        try await Task.sleep(nanoseconds: 600_000_000)
        try back.expectQuiet()
    }
}
