import WhisperProtocol

/// Percent-decoded values of a matched route's `{name}` segments.
public struct HTTPPathParameters: Sendable, Equatable {
    public struct Item: Sendable, Equatable {
        public var name: String
        public var value: String
    }

    public private(set) var items: [Item] = []

    public init() {}

    public subscript(name: String) -> String? {
        items.first { $0.name == name }?.value
    }

    mutating func append(name: String, value: String) {
        items.append(Item(name: name, value: value))
    }

    /// Joins raw segments with "/" and percent-decodes (RFC 3986 §2.1), so `att/2026/x.bin` and
    /// `att%2F2026%2Fx.bin` give the same value. Rejected (nil → the route does not match, 404):
    /// malformed escapes, invalid UTF-8, NUL, and any "/"-separated component that is empty, "."
    /// or ".." after decoding (RFC 3986 §3.3 dot-segments), so a value can never walk a hierarchy.
    static func decode(_ raw: ArraySlice<Substring>) -> String? {
        let joined = raw.count == 1 ? raw.first.map(String.init) : raw.joined(separator: "/")
        guard let joined, let value = PercentDecoding.decode(joined), !value.utf8.contains(0) else { return nil }
        for component in value.split(separator: "/", omittingEmptySubsequences: false) {
            if component.isEmpty || component == "." || component == ".." { return nil }
        }
        return value
    }
}
