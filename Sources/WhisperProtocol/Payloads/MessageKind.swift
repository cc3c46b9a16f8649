/// A message's `msgType` (docs/protocol.md "Messaging (1:1)"). The server cannot see content; the kind only decides the
/// ciphertext cap (`text` and `system`: 8,016 decoded bytes, docs/protocol.md "Messaging (1:1)") and the metrics label.
public enum MessageKind: String, Sendable, CaseIterable {
    case text
    case image
    case voice
    case file
    case system

    public static let key = "msgType"

    /// Kinds whose whole content is in `ciphertext` (no attachment), so it is capped at
    /// `Limits.maxTextCiphertextBytes`; the others are bounded only by the frame size.
    public var hasTextCiphertextCap: Bool {
        switch self {
        case .text, .system: return true
        case .image, .voice, .file: return false
        }
    }

    /// Reads the required `key` member: a string, exactly one of the raw values (lower case).
    public static func require(_ key: String = MessageKind.key, in payload: some JSONFieldSource) throws(PayloadError) -> MessageKind {
        guard let kind = MessageKind(rawValue: try payload.requireString(key)) else { throw .invalidValue(field: key) }
        return kind
    }
}
