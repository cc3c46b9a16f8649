/// A parsed JSON value (RFC 8259).
///
/// Numbers written without a fraction or exponent that fit in `Int64` are `.int`; every other number
/// is `.double`. So `1` is `.int(1)` but `1.0` and `1e0` are `.double(1)`: protocol fields that must be
/// integers (timestamps, versions) can be checked with `int64Value` without accepting `1.5`.
///
/// Equality is structural and compares strings by their UTF-8 bytes (not by Unicode canonical
/// equivalence), matching how the parser detects duplicate keys. Object equality is order-sensitive.
public enum JSONValue: Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)
}

extension JSONValue: Equatable {
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.int(a), .int(b)): return a == b
        case let (.double(a), .double(b)): return a == b
        case let (.string(a), .string(b)): return a.utf8.elementsEqual(b.utf8)
        case let (.array(a), .array(b)): return a == b
        case let (.object(a), .object(b)): return a == b
        default: return false
        }
    }
}

extension JSONValue: CustomStringConvertible {
    /// Compact JSON text. A non-finite `.double` (only possible when built in code) prints as `null`.
    public var description: String {
        var writer = JSONWriter()
        do {
            try writer.value(self)
        } catch {
            return "null"
        }
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}
