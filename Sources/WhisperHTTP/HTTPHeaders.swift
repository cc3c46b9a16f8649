/// An ordered list of header fields with ASCII case-insensitive lookup (RFC 9110 §5.1). Order and
/// duplicates are preserved as received; nothing is combined behind the caller's back.
public struct HTTPHeaders: Sendable, Equatable {
    public struct Field: Sendable, Equatable {
        public var name: String
        public var value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    public private(set) var fields: [Field]

    public init() { fields = [] }

    public init(_ pairs: [(String, String)]) {
        fields = pairs.map { Field(name: $0.0, value: $0.1) }
    }

    public var count: Int { fields.count }
    public var isEmpty: Bool { fields.isEmpty }

    /// The first value of `name`, or nil. For list-valued fields use `values(for:)` or `tokens(for:)`.
    public subscript(name: String) -> String? {
        fields.first { ASCII.equalsIgnoringCase($0.name, name) }?.value
    }

    /// Every value of `name`, one per field line, in received order.
    public func values(for name: String) -> [String] {
        fields.compactMap { ASCII.equalsIgnoringCase($0.name, name) ? $0.value : nil }
    }

    public func contains(_ name: String) -> Bool {
        fields.contains { ASCII.equalsIgnoringCase($0.name, name) }
    }

    /// The comma-separated list elements of every `name` line, trimmed of OWS, empty elements
    /// dropped (RFC 9110 §5.6.1), e.g. `Connection: keep-alive, Upgrade` → ["keep-alive", "Upgrade"].
    public func tokens(for name: String) -> [Substring] {
        var result: [Substring] = []
        for value in values(for: name) {
            for element in value.split(separator: ",", omittingEmptySubsequences: true) {
                let trimmed = element.trimmingOWS()
                if !trimmed.isEmpty { result.append(trimmed) }
            }
        }
        return result
    }

    /// Whether any list element of `name` equals `token`, case-insensitively (tokens such as
    /// connection options are case-insensitive — RFC 9110 §7.6.1).
    public func containsToken(_ token: String, for name: String) -> Bool {
        tokens(for: name).contains { ASCII.equalsIgnoringCase($0, token) }
    }

    public mutating func add(name: String, value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Replaces every `name` line with one line holding `value` (kept at the first one's position).
    public mutating func replaceOrAdd(name: String, value: String) {
        if let index = fields.firstIndex(where: { ASCII.equalsIgnoringCase($0.name, name) }) {
            fields[index].value = value
            var i = fields.index(after: index)
            while i < fields.endIndex {
                if ASCII.equalsIgnoringCase(fields[i].name, name) { fields.remove(at: i) } else { i += 1 }
            }
        } else {
            add(name: name, value: value)
        }
    }

    public mutating func remove(name: String) {
        fields.removeAll { ASCII.equalsIgnoringCase($0.name, name) }
    }
}

extension HTTPHeaders: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }
}

extension HTTPHeaders: Sequence {
    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }
}

extension StringProtocol {
    /// Drops leading and trailing SP / HTAB (`OWS`, RFC 9110 §5.6.3).
    func trimmingOWS() -> SubSequence {
        var start = startIndex, end = endIndex
        while start < end, self[start] == " " || self[start] == "\t" { start = index(after: start) }
        while end > start {
            let before = index(before: end)
            guard self[before] == " " || self[before] == "\t" else { break }
            end = before
        }
        return self[start..<end]
    }
}
