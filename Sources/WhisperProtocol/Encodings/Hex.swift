/// Hexadecimal digits: written lower-case (the form of Redis keys, log references,
/// PostgreSQL `bytea` and JSON `\u00XX` escapes), read in either case. The one copy for every
/// module: this one depends on nothing, so any of them may import it.
public enum Hex {
    /// The value of one hex digit of either case, or nil for any other byte.
    @inlinable
    public static func value(ofDigit byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte &- UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte &- UInt8(ascii: "a") &+ 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte &- UInt8(ascii: "A") &+ 10
        default: return nil
        }
    }

    /// The lower-case digit for the low four bits of `nibble` (the high bits are ignored, so no
    /// value can index out of range).
    @inlinable
    public static func digit(_ nibble: UInt8) -> UInt8 {
        let value = nibble & 0x0F
        return value < 10 ? UInt8(ascii: "0") &+ value : UInt8(ascii: "a") &+ (value &- 10)
    }

    /// Two lower-case digits per byte.
    public static func encode(_ bytes: [UInt8]) -> String {
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digit(byte >> 4))
            out.append(digit(byte))
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of an even number of hex digits (either case); nil on an odd count or any
    /// other byte.
    public static func decode<Digits: Collection>(_ digits: Digits) -> [UInt8]? where Digits.Element == UInt8 {
        guard digits.count % 2 == 0 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(digits.count / 2)
        var iterator = digits.makeIterator()
        while let high = iterator.next() {
            guard let low = iterator.next(), let highValue = value(ofDigit: high), let lowValue = value(ofDigit: low)
            else { return nil }
            out.append(highValue << 4 | lowValue)
        }
        return out
    }

    /// `decode` of the text's UTF-8.
    public static func decode(_ text: String) -> [UInt8]? { decode(text.utf8) }
}
