/// A Redis Cluster node as clients reach it: `host:port` (the address `CLUSTER SLOTS`, `MOVED`
/// and `ASK` name, or a configured seed).
public struct RedisNodeAddress: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// `host:port` as `MOVED`/`ASK` write it (the last colon splits, so an IPv6 host stays whole);
    /// nil when malformed.
    public init?(redirect text: Substring) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
              (1...65_535).contains(port) else { return nil }
        var host = text[..<colon]
        if host.hasPrefix("["), host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        self.init(host: String(host), port: port)
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// Which primary (and replicas) serves each of the 16,384 slots, read from `CLUSTER SLOTS`.
///
/// Parsing is defensive: the reply comes from the network, so a reply that is not exactly the
/// documented shape (ranges inside 0…16383, a primary with a host and a port in 1…65535,
/// no overlapping ranges) is refused whole and the caller keeps the map it had. Extra fields
/// after a node's port (node id, Redis 7's metadata map) are ignored. Slots no range covers
/// stay unassigned (`primary(forSlot:)` is nil): a cluster being set up, or one missing a shard.
public struct RedisClusterMap: Sendable, Equatable {
    public struct Shard: Sendable, Equatable {
        public var primary: RedisNodeAddress
        public var replicas: [RedisNodeAddress]
    }

    public enum ParseError: Error, Equatable {
        case notAnArray
        case malformedRange(index: Int)
        case malformedNode(index: Int)
        case overlappingRange(index: Int)
    }

    public private(set) var shards: [Shard] = []
    /// Per slot, an index into `shards`; -1 for unassigned.
    private var owners = [Int16](repeating: -1, count: RedisSlot.count)

    public init() {}

    /// The primary serving `slot`, if known.
    public func primary(forSlot slot: Int) -> RedisNodeAddress? {
        guard slot >= 0, slot < RedisSlot.count else { return nil }
        let owner = Int(owners[slot])
        return owner >= 0 ? shards[owner].primary : nil
    }

    /// Slots with an owner.
    public var assignedSlots: Int { owners.reduce(0) { $0 + ($1 >= 0 ? 1 : 0) } }

    /// Every primary, in the order the reply named them.
    public var primaries: [RedisNodeAddress] { shards.map(\.primary) }

    /// Primaries, then replicas: the nodes to ask for the next map.
    public var nodes: [RedisNodeAddress] {
        var seen = Set<RedisNodeAddress>()
        return (primaries + shards.flatMap(\.replicas)).filter { seen.insert($0).inserted }
    }

    /// `MOVED slot host:port`: that slot is now served by `primary` (a shard of its own until
    /// the next full map says which replicas it has).
    public mutating func assign(slot: Int, to primary: RedisNodeAddress) {
        guard slot >= 0, slot < RedisSlot.count else { return }
        owners[slot] = Int16(truncatingIfNeeded: shardIndex(of: primary))
    }

    private mutating func shardIndex(of primary: RedisNodeAddress) -> Int {
        if let index = shards.firstIndex(where: { $0.primary == primary }) { return index }
        shards.append(Shard(primary: primary, replicas: []))
        return shards.count - 1
    }

    /// Reads a `CLUSTER SLOTS` reply:
    ///
    ///     1) 1) (integer) 0          start slot
    ///        2) (integer) 5460       end slot (inclusive)
    ///        3) 1) "127.0.0.1"       primary: host (empty: the node that answered)
    ///           2) (integer) 30001             port
    ///           3) "09dbe9…"                   node id, then optional metadata: ignored
    ///        4) 1) "127.0.0.1" …     replicas, same shape
    ///
    /// `answeredBy` stands in for an empty host (a node that does not know its own address).
    public static func parse(slots reply: RedisValue, answeredBy: RedisNodeAddress) -> Result<RedisClusterMap, ParseError> {
        guard case .array(let ranges?) = reply else { return .failure(.notAnArray) }
        var map = RedisClusterMap()
        for (index, range) in ranges.enumerated() {
            guard case .array(let fields?) = range, fields.count >= 3,
                  case .integer(let start) = fields[0], case .integer(let end) = fields[1],
                  start >= 0, start <= end, end < RedisSlot.count
            else { return .failure(.malformedRange(index: index)) }
            var nodes: [RedisNodeAddress] = []
            for field in fields[2...] {
                guard let node = node(field, answeredBy: answeredBy) else { return .failure(.malformedNode(index: index)) }
                nodes.append(node)
            }
            let first = Int(start), last = Int(end)
            guard map.owners[first...last].allSatisfy({ $0 < 0 }) else { return .failure(.overlappingRange(index: index)) }
            let shard = map.shardIndex(of: nodes[0])
            for replica in nodes.dropFirst() where !map.shards[shard].replicas.contains(replica) {
                map.shards[shard].replicas.append(replica)
            }
            for slot in first...last { map.owners[slot] = Int16(truncatingIfNeeded: shard) }
        }
        return .success(map)
    }

    private static func node(_ value: RedisValue, answeredBy: RedisNodeAddress) -> RedisNodeAddress? {
        guard case .array(let fields?) = value, fields.count >= 2,
              case .bulk(let hostBytes?) = fields[0], hostBytes.count <= 255,
              case .integer(let port) = fields[1], (1...65_535).contains(port)
        else { return nil }
        let host = String(decoding: hostBytes, as: UTF8.self)
        // "?" is Redis 7's "endpoint unknown": such a node cannot be reached by its address.
        guard host != "?", !host.contains(where: { $0 == " " || $0 == "\0" }) else { return nil }
        return RedisNodeAddress(host: host.isEmpty ? answeredBy.host : host, port: Int(port))
    }
}
