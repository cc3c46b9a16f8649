extension JSONValue {
    /// The kind of a value, for error messages and schema checks.
    public enum Kind: String, Sendable {
        case null
        case bool = "boolean"
        case int = "integer"
        case double = "number"
        case string, array, object
    }

    public var kind: Kind {
        switch self {
        case .null: return .null
        case .bool: return .bool
        case .int: return .int
        case .double: return .double
        case .string: return .string
        case .array: return .array
        case .object: return .object
        }
    }

    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    public var boolValue: Bool? {
        if case let .bool(value) = self { return value }
        return nil
    }

    /// Only integers written as integers: `.double(1.0)` is not an `Int64`.
    public var int64Value: Int64? {
        if case let .int(value) = self { return value }
        return nil
    }

    /// Any number, widened to `Double` (an `Int64` beyond 2^53 may round).
    public var doubleValue: Double? {
        switch self {
        case let .int(value): return Double(value)
        case let .double(value): return value
        default: return nil
        }
    }

    public var stringValue: String? {
        if case let .string(value) = self { return value }
        return nil
    }

    public var arrayValue: [JSONValue]? {
        if case let .array(value) = self { return value }
        return nil
    }

    public var objectValue: JSONObject? {
        if case let .object(value) = self { return value }
        return nil
    }

    /// Member lookup when `self` is an object; `nil` for other kinds or a missing key.
    public subscript(key: String) -> JSONValue? {
        if case let .object(object) = self { return object[key] }
        return nil
    }
}
