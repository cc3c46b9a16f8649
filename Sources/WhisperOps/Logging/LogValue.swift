/// The value of an extra log field. Only scalars: there is deliberately no case for bytes,
/// dictionaries or `Codable` payloads, so a frame, token, key or ciphertext cannot be logged by
/// passing it whole. Log sizes (`.int(ciphertext.count)`), never contents.
public enum LogValue: Sendable, Equatable, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByStringLiteral
{
    case string(String)
    case int(Int)
    case bool(Bool)

    public init(integerLiteral value: Int) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(stringLiteral value: String) { self = .string(value) }
}
