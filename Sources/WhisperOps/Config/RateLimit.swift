/// A rate limit `"<count>/<seconds>"`: at most `count` hits in any window of `windowSeconds`
/// (burst = count), docs/operations.md "Rate limits". Enforced through Redis by the services layer.
public struct RateLimit: Sendable, Hashable, CustomStringConvertible {
    public var count: Int
    public var windowSeconds: Int

    /// Upper bounds that keep `count` and `windowSeconds * 1000` far from overflow anywhere.
    public static let maxCount = 1_000_000_000
    public static let maxWindowSeconds = 7 * 24 * 3600

    public init(count: Int, windowSeconds: Int) {
        self.count = count
        self.windowSeconds = windowSeconds
    }

    /// `count/windowSeconds`, the same form `parse` accepts.
    public var description: String { "\(count)/\(windowSeconds)" }

    /// Parses `"<count>/<seconds>"` (decimal, both ≥ 1, spaces around numbers allowed).
    public static func parse(_ text: String) -> RateLimit? {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2,
              let count = parseBounded(parts[0], max: maxCount),
              let window = parseBounded(parts[1], max: maxWindowSeconds)
        else { return nil }
        return RateLimit(count: count, windowSeconds: window)
    }

    private static func parseBounded(_ text: Substring, max: Int) -> Int? {
        let trimmed = text.trimmingASCIIWhitespace()
        guard !trimmed.isEmpty, trimmed.count <= 10,
              trimmed.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
              let value = Int(trimmed), value >= 1, value <= max
        else { return nil }
        return value
    }
}

extension StringProtocol {
    /// Drops leading and trailing spaces, tabs, CR and LF.
    func trimmingASCIIWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" }
        guard let first = firstIndex(where: { !isSpace($0) }),
              let last = lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(self[first...last])
    }
}
