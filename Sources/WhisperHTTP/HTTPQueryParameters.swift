import WhisperProtocol

/// Query parameters of a request target, in order, percent-decoded. `a=1&b&c=` gives
/// ("a","1"), ("b",""), ("c",""); empty pieces (`&&`) are skipped; `+` stays a plus (see
/// `PercentDecoding`).
public struct HTTPQueryParameters: Sendable, Equatable {
    public struct Item: Sendable, Equatable {
        public var name: String
        public var value: String
    }

    public private(set) var items: [Item]

    /// Nil when an escape is malformed or a decoded name or value is not valid UTF-8, so the
    /// caller can answer 400 instead of working on replacement characters.
    public init?<S: StringProtocol>(parsing query: S) {
        items = []
        for piece in query.split(separator: "&", omittingEmptySubsequences: true) {
            let name: S.SubSequence.SubSequence, value: S.SubSequence.SubSequence
            if let eq = piece.firstIndex(of: "=") {
                name = piece[..<eq]
                value = piece[piece.index(after: eq)...]
            } else {
                name = piece[...]
                value = piece[piece.endIndex...]
            }
            guard let decodedName = PercentDecoding.decode(name),
                  let decodedValue = PercentDecoding.decode(value)
            else { return nil }
            items.append(Item(name: decodedName, value: decodedValue))
        }
    }

    /// The first value of `name` (names compare exactly, they are case-sensitive).
    public subscript(name: String) -> String? {
        items.first { $0.name == name }?.value
    }

    public func values(for name: String) -> [String] {
        items.compactMap { $0.name == name ? $0.value : nil }
    }
}
