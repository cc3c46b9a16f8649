import Foundation
import Testing
@testable import WhisperServer
import WhisperOps
import WhisperTesting
@testable import WhisperStores

/// Key layout 2 and `whisper-server upgrade-redis` (docs/operations.md "Upgrading to key layout 2").
@Suite(.serialized) struct RedisKeyLayoutTests {
    @Test func renamed_tagsEachFamilyByItsId_andLeavesTheRestAlone() {
        let wid = "WSP-ABCD-EFGH-IJ54"
        let cases: [(String, String?)] = [
            ("pending:" + wid, "pending:{" + wid + "}"),
            ("sessions:" + wid, "sessions:{" + wid + "}"),
            ("revoked:" + wid, "revoked:{" + wid + "}"),
            ("events:" + wid, "events:{" + wid + "}"),
            ("route:" + wid, "route:{" + wid + "}"),
            ("presence:" + wid, "presence:{" + wid + "}"),
            ("peers:" + wid, "peers:{" + wid + "}"),
            ("calls-held:" + wid, "calls-held:{" + wid + "}"),
            ("push-wake:" + wid, "push-wake:{" + wid + "}"),
            ("node:n1", "node:{n1}"),
            ("node-users:n1", "node-users:{n1}"),
            ("call:0f8fad5b-d9cb-469f-a165-70867728950e", "call:{0f8fad5b-d9cb-469f-a165-70867728950e}"),
            ("call-ice:0f8fad5b-d9cb-469f-a165-70867728950e", "call-ice:{0f8fad5b-d9cb-469f-a165-70867728950e}"),
            ("group-epoch:g1", "group-epoch:{g1}"),
            ("ratelimit:id:" + wid + ":send", "ratelimit:{" + wid + "}:send"),
            ("ratelimit:ip:2001:db8::1:login", "ratelimit:{ip:2001:db8::1}:login"),
            ("typing:" + wid + ":WSP-ZZZZ-ZZZZ-ZZ00", "typing:{" + wid + "}:WSP-ZZZZ-ZZZZ-ZZ00"),
            // Already layout 2, kept names, singletons, the legacy envelope record, foreign keys.
            ("pending:{" + wid + "}", nil),
            ("session:0a1b2c", nil),
            ("challenge:0f8fad5b-d9cb-469f-a165-70867728950e", nil),
            ("msg:" + wid + ":0f8fad5b-d9cb-469f-a165-70867728950e", nil),
            ("pending-count", nil), ("nodes", nil), ("calls:deadlines", nil), ("layout", nil),
            ("something:else", nil), ("pending:", nil),
        ]
        for (old, new) in cases {
            #expect(RedisKeyLayout.renamed(old) == new, "\(old)")
        }
    }

    /// A deployment of the old layout with a queue, sessions and peers is upgraded in place: the
    /// server refuses it until then, the upgrade refuses while an old node lives, and afterwards
    /// a new server delivers the queue to the old session token.
    @Test func upgrade_movesALayout1Redis_withoutLosingTheQueueOrTheSession() async throws {
        let prefix = "test-\(UUID().uuidString.prefix(8).lowercased()):"
        let first = try await TestServer(["WHISPER_REDIS_PREFIX": prefix])
        // A Redis without data of a prefix gets the marker of this layout.
        var fresh = first.config
        fresh.redisPrefix = "test-\(UUID().uuidString.prefix(8).lowercased()):"
        try await WhisperServer.checkRedisKeyLayout(config: fresh, log: first.log)
        #expect(try Identity.redis().command(["GET", fresh.redisPrefix + "layout"]).text == "2")
        let alice = try Phone.online(first), bob = try Phone.online(first)
        alice.ws.socket.close()
        let sent = try (0..<2).map { _ in try bob.sendAccepted(to: alice.id).messageId }
        first.stop()

        // Back to the names of the old release (written here independently of `renamed`).
        let redis = try Identity.redis()
        // Keys that expire within a minute (the stopped node's heartbeat, rate-limit windows,
        // typing marks) could vanish between the two renames: the comparison below is exact.
        for key in try redis.keys(prefix: prefix) {
            if case .integer(let ttl) = try redis.command(["PTTL", key]), ttl >= 0, ttl < 60_000 {
                _ = try redis.command(["DEL", key])
            }
        }
        let layout2 = Set(try redis.keys(prefix: prefix)).subtracting([prefix + "layout"])
        var downgraded = 0
        for key in layout2 {
            guard let old = Self.layout1Name(String(key.dropFirst(prefix.count))) else { continue }
            #expect(try redis.command(["RENAME", key, prefix + old]) == .status("OK"))
            downgraded += 1
        }
        _ = try redis.command(["DEL", prefix + "layout"])
        #expect(downgraded >= 6, "queue, sessions, peers, presence, rate limits: \(layout2.sorted())")
        await #expect(throws: RedisKeyLayoutError.self) {
            try await WhisperServer.checkRedisKeyLayout(config: first.config, log: first.log)
        }

        // An old node still heartbeating: nothing is renamed.
        _ = try redis.command(["ZADD", prefix + "nodes", "1", "old-node"])
        _ = try redis.command(["SET", prefix + "node:old-node", "1", "PX", "60000"])
        await #expect(throws: RedisKeyLayoutError.self) {
            _ = try await WhisperServer.upgradeRedisKeys(config: first.config, log: first.log)
        }
        _ = try redis.command(["DEL", prefix + "node:old-node"])
        _ = try redis.command(["ZREM", prefix + "nodes", "old-node"])

        let report = try await WhisperServer.upgradeRedisKeys(config: first.config, log: first.log)
        #expect(report.renamed == downgraded)
        #expect(Set(try redis.keys(prefix: prefix)) == layout2.union([prefix + "layout"]))
        #expect(try await WhisperServer.upgradeRedisKeys(config: first.config, log: first.log).renamed == 0)
        try await WhisperServer.checkRedisKeyLayout(config: first.config, log: first.log)

        let second = try await TestServer(["WHISPER_REDIS_PREFIX": prefix])
        defer { second.stop() }
        let ws = try TestWebSocket(port: second.publicPort)
        let page = try ws.fetchPending(token: alice.token)
        let messages = page.payload["messages"] as? [[String: Any]] ?? []
        #expect(messages.compactMap { $0["messageId"] as? String } == sent, "\(page)")
        #expect(try ws.receipt(messageId: sent[0], from: alice.id, to: bob.id, token: alice.token).frameType
                    == "receipt_accepted")
    }

    /// The inverse of `RedisKeyLayout.renamed`, for building an old-layout Redis.
    private static func layout1Name(_ name: String) -> String? {
        guard let open = name.firstIndex(of: "{"), let close = name.firstIndex(of: "}"), open < close,
              name[name.index(before: open)] == ":" else { return nil }
        let family = name[..<name.index(before: open)], tag = name[name.index(after: open)..<close]
        let rest = name[name.index(after: close)...]
        switch family {
        case "ratelimit": return "ratelimit:" + (tag.hasPrefix("WSP-") ? "id:" + tag : tag) + rest
        case "typing": return "typing:" + tag + rest
        case "msg", "group-charge", "blocked": return nil  // tagged already in layout 1
        default: return rest.isEmpty ? family + ":" + tag : nil
        }
    }
}
