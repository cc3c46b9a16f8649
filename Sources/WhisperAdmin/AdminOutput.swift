import WhisperOps
import WhisperProtocol

/// Renders admin API answers for a terminal (docs/operations.md "Admin CLI"): a list body
/// (`{"items":[…],"nextCursor":…}`) as a compact table, an object as `name  value` lines,
/// an error body as one line. Times (epoch ms) are shown as RFC 3339 UTC.
public enum AdminOutput {
    public struct Column: Sendable {
        public enum Kind: Sendable { case text, time }
        public let title: String
        public let key: String
        public let kind: Kind

        public init(_ title: String, _ key: String, _ kind: Kind = .text) {
            self.title = title
            self.key = key
            self.kind = kind
        }
    }

    /// A cell wider than this is cut with `…` (details and notes can be long).
    static let maxCellCharacters = 48

    /// The items as rows under `columns`, then `next: <cursor>` when another page follows;
    /// nil when `body` is not a list body.
    public static func table(_ body: [UInt8], columns: [Column]) -> String? {
        guard let object = try? JSONParser.parseObject(body, limits: limits(body)), let items = object["items"]?.arrayValue
        else { return nil }
        var text = rows(items, columns: columns)
        if let next = object["nextCursor"]?.stringValue { text += "next: \(next)\n" }
        return text
    }

    /// An object's members as `name  value` lines (nested objects as compact JSON); nil
    /// when `body` is not an object. With `table`, that member (an array) is left out of the
    /// lines and follows them as a table under its columns.
    public static func fields(_ body: [UInt8], table: (key: String, columns: [Column])? = nil) -> String? {
        guard let object = try? JSONParser.parseObject(body, limits: limits(body)) else { return nil }
        let members = object.filter { $0.key != table?.key }
        let width = members.map(\.key.count).max() ?? 0
        var text = members.map { member in
            member.key.padding(toLength: width) + "  " + cell(member.value, isTime(member.key) ? .time : .text)
        }.joined(separator: "\n") + "\n"
        if let table, let items = object[table.key]?.arrayValue {
            text += "\n" + rows(items, columns: table.columns)
        }
        return text
    }

    /// A header line and one aligned line per item.
    static func rows(_ items: [JSONValue], columns: [Column]) -> String {
        let header = columns.map(\.title)
        let rows = items.map { item in columns.map { cell(item[$0.key], $0.kind) } }
        var widths = header.map(\.count)
        for row in rows {
            for (index, text) in row.enumerated() { widths[index] = max(widths[index], text.count) }
        }
        let lines = ([header] + rows).map { row in
            zip(row, widths).map { $0.0.padding(toLength: $0.1) }.joined(separator: "  ").trimmingTrailingSpaces()
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `CODE: message (HTTP status)` from the protocol's error body, or the raw body.
    public static func errorLine(status: Int, body: [UInt8]) -> String {
        if let object = try? JSONParser.parseObject(body, limits: limits(body)), let error = object["error"]?.objectValue,
           let code = error["code"]?.stringValue, let message = error["message"]?.stringValue {
            return "\(code): \(message) (HTTP \(status))"
        }
        return "HTTP \(status): " + String(decoding: body.prefix(200), as: UTF8.self)
    }

    static func cell(_ value: JSONValue?, _ kind: Column.Kind) -> String {
        let text: String
        switch value {
        case nil, .null?: text = "-"
        case .string(let string)?: text = string
        case .int(let number)? where kind == .time: text = time(number)
        case .int(let number)?: text = String(number)
        case .bool(let flag)?: text = flag ? "yes" : "no"
        case let other?:
            var writer = JSONWriter()
            _ = try? writer.value(other)
            text = String(decoding: writer.bytes, as: UTF8.self)
        }
        let flat = text.map { $0.isNewline || $0 == "\t" ? " " : $0 }
        return flat.count > maxCellCharacters ? String(flat.prefix(maxCellCharacters - 1)) + "…" : String(flat)
    }

    /// The API's time members: `createdAt`, `reviewedAt`, `until`, `serverTime`.
    static func isTime(_ key: String) -> Bool { key.hasSuffix("At") || key == "until" || key == "serverTime" }

    /// Epoch milliseconds as RFC 3339 UTC.
    static func time(_ millis: Int64) -> String {
        let (seconds, remainder) = millis.quotientAndRemainder(dividingBy: 1000)
        let floored = remainder < 0 ? (seconds - 1, remainder + 1000) : (seconds, remainder)
        return WallTime(secondsSinceEpoch: floored.0, nanoseconds: Int32(truncatingIfNeeded: floored.1) * 1_000_000).rfc3339
    }

    private static func limits(_ body: [UInt8]) -> JSONLimits {
        JSONLimits(maxInputBytes: max(body.count, 1), maxDepth: 16, maxStringBytes: max(body.count, 1))
    }
}

extension String {
    fileprivate func padding(toLength length: Int) -> String {
        count >= length ? self : self + String(repeating: " ", count: length - count)
    }

    fileprivate func trimmingTrailingSpaces() -> String {
        var view = Substring(self)
        while view.last == " " { view.removeLast() }
        return String(view)
    }
}
