import Foundation
import WhisperOps
import WhisperRuntime
import WhisperStorage

/// Which key names a Redis holds (docs/operations.md "Upgrading to key layout 2").
///
/// Layout 1 (every release before 2026-11-27) named a user's keys `pending:<wid>`; layout 2
/// (`RedisKeys`) names them `pending:{<wid>}`, a Redis Cluster hash tag, and likewise the keys
/// of one call, group or node. The cluster-wide singletons (`nodes`, `pending-count`, …) and
/// `session:<hash>` keep their names. The marker `layout` says "2"; a server refuses to start
/// on a Redis that holds layout-1 data without it, so no node ever reads a queue under a name
/// nobody writes. `whisper-server upgrade-redis` renames the keys in place — with every node of
/// the old release stopped — keeping each key's value and TTL: no pending message is lost and
/// no session ends.
package enum RedisKeyLayout {
    package static let current = "2"

    /// The families whose single id became a hash tag: `<family>:<id>` → `<family>:{<id>}`.
    package static let taggedFamilies = ["sessions", "revoked", "pending", "events", "route", "presence", "peers",
                                 "calls-held", "push-wake", "node", "node-users", "call", "call-ice", "group-epoch"]

    /// Singletons every layout-1 deployment that ever ran has at least one of.
    package static let layout1Signs = ["nodes", "pending-count", "pending-index", "presence-due", "revocation-epoch",
                               "calls:deadlines"]

    /// The layout-2 name of a layout-1 key (`name` without the prefix), or nil when the key kept
    /// its name (or already has its layout-2 one).
    package static func renamed(_ name: String) -> String? {
        guard let colon = name.firstIndex(of: ":") else { return nil }
        let family = name[..<colon], rest = name[name.index(after: colon)...]
        guard !rest.isEmpty, !rest.hasPrefix("{") else { return nil }
        switch family {
        case "ratelimit":
            // `ratelimit:<subject>:<action>`; an `ip:` subject may hold colons itself (IPv6).
            guard let last = rest.lastIndex(of: ":"), last > rest.startIndex else { return nil }
            let subject = String(rest[..<last]), action = rest[rest.index(after: last)...]
            return "ratelimit:{" + RedisKeys.rateLimitTag(subject) + "}:" + action
        case "typing":
            // `typing:<from>:<to>`: tagged by the sender.
            guard let split = rest.firstIndex(of: ":") else { return nil }
            return "typing:{" + rest[..<split] + "}" + rest[split...]
        default:
            guard taggedFamilies.contains(String(family)), !rest.contains(":") else { return nil }
            return family + ":{" + rest + "}"
        }
    }

    /// RENAMENX of each (old, new) pair in KEYS; a key that expired since the SCAN is skipped.
    /// Returns {renamed, pairs whose new name exists already}.
    package static let renameScript = RedisScript(source: """
        local renamed, clashes = 0, 0
        for i = 1, #KEYS, 2 do
          if redis.call('EXISTS', KEYS[i]) == 1 then
            if redis.call('RENAMENX', KEYS[i], KEYS[i + 1]) == 1 then renamed = renamed + 1 else clashes = clashes + 1 end
          end
        end
        return {renamed, clashes}
        """)
}

/// Why the key layout of a Redis cannot be used or upgraded.
public enum RedisKeyLayoutError: Error, CustomStringConvertible {
    case layout1
    case nodeAlive(String)
    case clashes(Int)
    case unexpectedReply(String)
    case redis(RedisError)
    case cluster

    public var description: String {
        switch self {
        case .layout1:
            return "Redis holds keys of key layout 1 (releases before 2026-11-27): stop every node and run "
                + "`whisper-server upgrade-redis` (docs/operations.md \"Upgrading to key layout 2\")"
        case .nodeAlive(let node):
            return "node \(node) of the old release is still running: stop every node first "
                + "(or wait for its heartbeat to expire, WHISPER_NODE_TTL_SECONDS)"
        case .clashes(let count):
            return "\(count) keys were left under their layout-1 name because the layout-2 name exists already; "
                + "the layout marker was not written (docs/operations.md \"Upgrading to key layout 2\")"
        case .unexpectedReply(let reply): return "unexpected Redis reply: \(reply)"
        case .redis(let error): return error.description
        case .cluster:
            return "upgrade-redis renames the keys of the standalone Redis an older release used; "
                + "a Redis Cluster only ever holds key layout 2"
        }
    }
}

/// What `upgradeRedisKeys` did.
public struct RedisKeyUpgradeReport: Sendable, Equatable {
    public var scanned = 0
    public var renamed = 0
}

extension RedisKeyLayout {
    /// Before serving: a Redis with no data of this prefix gets the layout marker; one with
    /// layout-1 data and no marker is refused (`RedisKeyLayoutError.layout1`).
    package static func check(_ redis: RedisClient, prefix: String) async throws {
        let keys = RedisKeys(prefix: prefix)
        if try await redis.call(["GET", keys.layout]).string == current { return }
        // One key per EXISTS: each is a slot of its own under Redis Cluster.
        for sign in layout1Signs where try await redis.call(["EXISTS", prefix + sign]).integer == 1 {
            throw RedisKeyLayoutError.layout1
        }
        _ = try await redis.call(["SET", keys.layout, current, "NX"])
    }

    /// `whisper-server upgrade-redis`: renames every layout-1 key of this prefix to its layout-2
    /// name (keeping value and TTL), then writes the marker. Refuses while a node of the old
    /// release is alive; safe to run again.
    package static func upgrade(_ redis: RedisClient, prefix: String) async throws -> RedisKeyUpgradeReport {
        // Layout 1 never ran on a cluster, and one node's SCAN would see a third of the keys.
        guard !redis.isCluster else { throw RedisKeyLayoutError.cluster }
        for node in try await redis.call(["ZRANGE", prefix + "nodes", "0", "-1"]).array ?? [] {
            guard let id = node.string else { continue }
            if try await redis.call(["EXISTS", prefix + "node:" + id]).integer == 1 {
                throw RedisKeyLayoutError.nodeAlive(id)
            }
        }
        var report = RedisKeyUpgradeReport(), clashes = 0, cursor = "0"
        repeat {
            let page = try await redis.call(["SCAN", cursor, "MATCH", globEscaped(prefix) + "*", "COUNT", "1000"])
            guard let parts = page.array, parts.count == 2, let next = parts[0].string, let found = parts[1].array else {
                throw RedisKeyLayoutError.unexpectedReply("\(page)")
            }
            cursor = next
            var pairs: [[UInt8]] = []
            for key in found {
                guard let bytes = key.bytes else { continue }
                report.scanned += 1
                let name = String(decoding: bytes.dropFirst(prefix.utf8.count), as: UTF8.self)
                if let new = renamed(name) { pairs += [bytes, Array((prefix + new).utf8)] }
            }
            guard !pairs.isEmpty else { continue }
            let counts: RedisValue
            do throws(RedisError) { counts = try await redis.evalScript(renameScript, keys: pairs, arguments: []) } catch {
                throw RedisKeyLayoutError.redis(error)
            }
            guard let values = counts.array, values.count == 2, let renamed = values[0].integer,
                  let clashed = values[1].integer else { throw RedisKeyLayoutError.unexpectedReply("\(counts)") }
            report.renamed += Int(renamed)
            clashes += Int(clashed)
        } while cursor != "0"
        guard clashes == 0 else { throw RedisKeyLayoutError.clashes(clashes) }
        _ = try await redis.call(["SET", RedisKeys(prefix: prefix).layout, current])
        return report
    }

    /// `*?[\` in the prefix match themselves in SCAN's MATCH.
    package static func globEscaped(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if "*?[]\\".contains(character) { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }
}

private extension RedisClient {
    /// A command whose error reply is thrown, for the one-off tasks above.
    func call(_ arguments: [String]) async throws -> RedisValue {
        let value: RedisValue
        do { value = try await send(arguments) } catch { throw RedisKeyLayoutError.redis(error) }
        if case .error(let message) = value { throw RedisKeyLayoutError.unexpectedReply(message) }
        return value
    }
}
