/// A payload that fails validation. All of these are `INVALID_PAYLOAD` on the wire; `message` is the
/// human text for the reply (peer-supplied text in it is truncated).
public enum PayloadError: Error, Equatable, Sendable {
    case missingField(String)
    case wrongType(field: String, expected: JSONValue.Kind)
    case invalidBase64(field: String)
    case wrongLength(field: String, expectedBytes: Int, actualBytes: Int)
    case tooLarge(field: String, maxBytes: Int)
    /// A list (or the set it makes, like a group's members) with more than `max` entries.
    case tooManyItems(field: String, max: Int)
    case invalidUUID(field: String)
    case invalidWhisperID(field: String)
    case invalidGroupID(field: String)
    case unsupportedVersion(field: String, expected: Int64)
    case outOfRange(field: String)
    /// A payload member the frame type does not define (payloads are closed, like the schemas).
    case unknownField(String)
    /// A string outside its allowed set (`platform`) or character range (push tokens).
    case invalidValue(field: String)

    public var code: ErrorCode { .invalidPayload }

    public var message: String {
        switch self {
        case let .missingField(field):
            return "\(field) is required"
        case let .wrongType(field, expected):
            return "\(field) must be \(Self.article(expected)) \(expected.rawValue)"
        case let .invalidBase64(field):
            return "\(field) is not valid base64 (RFC 4648 §4, padded)"
        case let .wrongLength(field, expected, actual):
            return "\(field) must decode to \(expected) bytes, got \(actual)"
        case let .tooLarge(field, maxBytes):
            return "\(field) exceeds \(maxBytes) bytes"
        case let .tooManyItems(field, max):
            return "\(field) exceeds \(max) entries"
        case let .invalidUUID(field):
            return "\(field) is not a UUID"
        case let .invalidWhisperID(field):
            return "\(field) is not a valid Whisper ID"
        case let .invalidGroupID(field):
            return "\(field) is not a valid group id"
        case let .unsupportedVersion(field, expected):
            return "\(field) must be \(expected)"
        case let .outOfRange(field):
            return "\(field) is out of range"
        case let .unknownField(field):
            return "unknown field \"\(truncatedForMessage(field))\""
        case let .invalidValue(field):
            return "\(field) has an invalid value"
        }
    }

    private static func article(_ kind: JSONValue.Kind) -> String {
        switch kind {
        case .int, .array, .object: return "an"
        default: return "a"
        }
    }
}
