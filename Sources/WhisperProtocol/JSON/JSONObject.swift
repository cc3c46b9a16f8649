/// A JSON object that keeps its members in source order.
///
/// Lookup is a linear scan with byte-exact key comparison: protocol frames have ~15 keys, where a scan
/// beats hashing. Keys are unique (the parser rejects duplicates, `subscript` setter replaces).
///
/// Objects produced by `JSONParser` remember, for each member, the byte range of its value in the
/// parsed input (`span(forKey:)`), so a server can forward a sender's exact bytes.
public struct JSONObject: Sendable {
    /// One member. `valueSpan` is the value's byte range in the parsed input (offsets from the start
    /// of the buffer given to the parser), or `nil` when the member was built in code.
    public struct Member: Sendable {
        public var key: String
        public var value: JSONValue
        public var valueSpan: Range<Int>?

        public init(key: String, value: JSONValue, valueSpan: Range<Int>? = nil) {
            self.key = key
            self.value = value
            self.valueSpan = valueSpan
        }
    }

    public private(set) var members: [Member]

    public init() { members = [] }

    /// Builds an object from pairs; a repeated key keeps the last value at the first position.
    public init(_ pairs: [(String, JSONValue)]) {
        members = []
        members.reserveCapacity(pairs.count)
        for (key, value) in pairs { self[key] = value }
    }

    /// Trusted construction by the parser, which has already rejected duplicates.
    init(uncheckedMembers: [Member]) { members = uncheckedMembers }

    public var count: Int { members.count }
    public var isEmpty: Bool { members.isEmpty }
    public var keys: [String] { members.map(\.key) }

    public func index(forKey key: String) -> Int? { members.index(forKey: key) }

    public func contains(_ key: String) -> Bool { index(forKey: key) != nil }

    /// Get: the member's value. Set: replace in place, append when new, remove on `nil`.
    public subscript(key: String) -> JSONValue? {
        get {
            guard let i = index(forKey: key) else { return nil }
            return members[i].value
        }
        set {
            if let i = index(forKey: key) {
                if let newValue {
                    members[i].value = newValue
                    members[i].valueSpan = nil
                } else {
                    members.remove(at: i)
                }
            } else if let newValue {
                members.append(Member(key: key, value: newValue))
            }
        }
    }

    /// The byte range of the member's value in the parsed input, if the member came from the parser.
    public func span(forKey key: String) -> Range<Int>? {
        guard let i = index(forKey: key) else { return nil }
        return members[i].valueSpan
    }
}

extension JSONObject: Equatable {
    /// Order-sensitive, byte-exact keys; spans are ignored.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.members.count == rhs.members.count else { return false }
        for (a, b) in zip(lhs.members, rhs.members) {
            guard utf8Equal(a.key, b.key), a.value == b.value else { return false }
        }
        return true
    }
}

extension JSONObject: Sequence {
    public func makeIterator() -> some IteratorProtocol<(key: String, value: JSONValue)> {
        members.lazy.map { (key: $0.key, value: $0.value) }.makeIterator()
    }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements)
    }
}
