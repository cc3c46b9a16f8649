import WhisperProtocol

/// The ids of messages already stored (spec §5.5), so a message that comes again — live and
/// then from `fetch_pending`, or again after a lost receipt — is stored once. Keyed by sender
/// and lower-cased `messageId` (a group message keeps one id across members, contract §15);
/// bounded: the oldest ids are forgotten past `capacity` (`seen.json`).
struct SeenMessages {
    static let fileName = "seen.json"
    static let defaultCapacity = 10_000
    let capacity: Int
    private var order: [String] = []
    private var members: Set<String> = []

    init(capacity: Int = defaultCapacity) { self.capacity = max(1, capacity) }

    static func key(from: WhisperID, messageId: String) -> String { from.string + "/" + messageId.lowercased() }

    func contains(_ key: String) -> Bool { members.contains(key) }

    mutating func insert(_ key: String) {
        guard members.insert(key).inserted else { return }
        order.append(key)
        if order.count > capacity {
            let dropped = order.count - capacity
            for old in order.prefix(dropped) { members.remove(old) }
            order.removeFirst(dropped)
        }
    }

    var count: Int { order.count }

    static func load(from home: ClientHome, capacity: Int = defaultCapacity) throws(ClientError) -> SeenMessages {
        var seen = SeenMessages(capacity: capacity)
        guard let json = try home.readJSON(fileName) else { return seen }
        guard let ids = json["ids"]?.arrayValue else { throw .storage("\(fileName) is damaged") }
        for id in ids { if let key = id.stringValue { seen.insert(key) } }
        return seen
    }

    func save(in home: ClientHome) throws(ClientError) {
        var w = JSONWriter(capacity: order.count * 48 + 16)
        w.beginObject()
        w.member("ids", strings: order)
        w.endObject()
        try home.write(Self.fileName, w.bytes)
    }
}
