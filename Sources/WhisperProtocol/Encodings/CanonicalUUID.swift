/// A UUID in its canonical text form: `8-4-4-4-12` hex digits, lowercase (docs/protocol.md "Encodings": accepted in any
/// case, compared and emitted lowercase). Any version is accepted. Equality is of the value.
///
/// Signed fields (`messageId`, `callId`) must still be forwarded as the sender wrote them
/// (docs/protocol.md "Encodings"): use this for comparisons and keys, not to rewrite what is forwarded.
public struct CanonicalUUID: Hashable, Sendable, CustomStringConvertible {
    /// The lowercase text.
    public let string: String

    public static let textLength = 36

    /// `nil` unless `text` is a UUID in canonical layout (any case).
    public init?(_ text: String) {
        var text = text
        var hasUppercase = false
        let valid = text.withUTF8 { utf8 -> Bool in
            guard utf8.count == Self.textLength else { return false }
            for (i, byte) in utf8.enumerated() {
                if i == 8 || i == 13 || i == 18 || i == 23 {
                    guard byte == ASCII.minus else { return false }
                } else {
                    guard Hex.value(ofDigit: byte) != nil else { return false }
                    if byte >= UInt8(ascii: "A"), byte <= UInt8(ascii: "F") { hasUppercase = true }
                }
            }
            return true
        }
        guard valid else { return nil }
        string = hasUppercase ? Self.asciiLowercased(text) : text
    }

    public var description: String { string }

    public static func isValid(_ text: String) -> Bool { CanonicalUUID(text) != nil }

    /// True when both are valid UUIDs with the same value (case-insensitive).
    public static func equal(_ a: String, _ b: String) -> Bool {
        guard let a = CanonicalUUID(a), let b = CanonicalUUID(b) else { return false }
        return a == b
    }

    /// A random version 4 UUID (RFC 9562 §5.4).
    public static func random<G: RandomNumberGenerator>(using generator: inout G) -> CanonicalUUID {
        var bytes = [UInt8](repeating: 0, count: 16)
        for i in bytes.indices { bytes[i] = UInt8.random(in: 0...255, using: &generator) }
        bytes[6] = bytes[6] & 0x0F | 0x40   // version 4
        bytes[8] = bytes[8] & 0x3F | 0x80   // variant 10
        var text = ""
        text.reserveCapacity(textLength)
        let digits = Array("0123456789abcdef")
        for (i, byte) in bytes.enumerated() {
            if i == 4 || i == 6 || i == 8 || i == 10 { text.append("-") }
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return CanonicalUUID(validatedLowercase: text)
    }

    public static func random() -> CanonicalUUID {
        var generator = SystemRandomNumberGenerator()
        return random(using: &generator)
    }

    init(validatedLowercase text: String) { string = text }

    static func asciiLowercased(_ text: String) -> String {
        String(decoding: text.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
    }
}
