/// Why JSON text was rejected (or could not be written), and where.
public struct JSONError: Error, Equatable, Sendable {
    public enum Kind: Equatable, Sendable {
        // Structure
        case unexpectedEnd
        case unexpectedByte(UInt8)
        case invalidLiteral
        case trailingData
        case topLevelNotObject
        // Numbers
        case invalidNumber
        case leadingZero
        case numberOutOfRange
        case numberTooLong
        // Strings
        case controlCharacterInString
        case invalidEscape
        case invalidUnicodeEscape
        case loneSurrogate
        case invalidUTF8
        // Objects
        case duplicateKey(String)
        // Limits (JSONLimits)
        case inputTooLarge
        case depthLimitExceeded
        case stringTooLong
        case tooManyElements
        case tooManyMembers
        // Writer
        case nonFiniteNumber
    }

    public let kind: Kind
    /// Byte offset in the input where the problem was found (0 for writer errors).
    public let offset: Int

    public init(_ kind: Kind, at offset: Int) {
        self.kind = kind
        self.offset = offset
    }
}

extension JSONError: CustomStringConvertible {
    /// A short human message, safe to send to a peer: peer-supplied text is truncated.
    public var description: String { "\(reason) at byte \(offset)" }

    public var reason: String {
        switch kind {
        case .unexpectedEnd: return "unexpected end of input"
        case let .unexpectedByte(byte): return "unexpected byte \(hexByte(byte))"
        case .invalidLiteral: return "invalid literal"
        case .trailingData: return "trailing data after the JSON value"
        case .topLevelNotObject: return "top-level value is not an object"
        case .invalidNumber: return "invalid number"
        case .leadingZero: return "number with a leading zero"
        case .numberOutOfRange: return "number out of range"
        case .numberTooLong: return "number too long"
        case .controlCharacterInString: return "unescaped control character in string"
        case .invalidEscape: return "invalid escape sequence"
        case .invalidUnicodeEscape: return "invalid \\u escape"
        case .loneSurrogate: return "lone UTF-16 surrogate in \\u escape"
        case .invalidUTF8: return "invalid UTF-8"
        case let .duplicateKey(key): return "duplicate key \"\(truncatedForMessage(key))\""
        case .inputTooLarge: return "input too large"
        case .depthLimitExceeded: return "nesting too deep"
        case .stringTooLong: return "string too long"
        case .tooManyElements: return "too many array elements"
        case .tooManyMembers: return "too many object members"
        case .nonFiniteNumber: return "NaN or infinity cannot be written as JSON"
        }
    }
}

func hexByte(_ byte: UInt8) -> String {
    let digits: [Character] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "A", "B", "C", "D", "E", "F"]
    return "0x" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0xF)])
}

/// Peer-controlled text echoed in an error message is cut to 64 characters.
func truncatedForMessage(_ text: String) -> String {
    let limit = 64
    guard text.count > limit else { return text }
    return String(text.prefix(limit)) + "…"
}
