/// Percent-decoding of URI components (RFC 3986 §2.1): HTTP query and path parameters and the
/// userinfo of configuration URLs. Here, in the module with no dependencies, so both may use it.
///
/// `+` is left as a literal plus: RFC 3986 gives it no meaning, and mobile URL builders (e.g.
/// Foundation's URLComponents) do not encode it in query values, so reading it as a space would
/// corrupt opaque cursors and tokens.
public enum PercentDecoding {
    private static let percent = UInt8(ascii: "%")

    /// Decoded bytes, or nil when a "%" is not followed by two hex digits.
    public static func decodeBytes<Encoded: Collection>(_ encoded: Encoded) -> [UInt8]?
    where Encoded.Element == UInt8 {
        var out: [UInt8] = []
        out.reserveCapacity(encoded.count)
        var iterator = encoded.makeIterator()
        while let byte = iterator.next() {
            guard byte == percent else {
                out.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(Hex.value(ofDigit:)),
                  let low = iterator.next().flatMap(Hex.value(ofDigit:))
            else { return nil }
            out.append(high << 4 | low)
        }
        return out
    }

    /// Decoded text, or nil on a malformed escape or when the bytes are not valid UTF-8.
    public static func decode<Encoded: Collection>(_ encoded: Encoded) -> String? where Encoded.Element == UInt8 {
        guard let bytes = decodeBytes(encoded) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }

    /// Decoded text, or nil on a malformed escape or when the bytes are not valid UTF-8.
    public static func decode<S: StringProtocol>(_ encoded: S) -> String? {
        // Fast path: nothing to decode, and the input is already a valid String.
        if !encoded.utf8.contains(percent) { return String(encoded) }
        return decode(encoded.utf8)
    }

    /// Whether every "%" in `bytes` starts a valid `pct-encoded` triplet.
    public static func isWellFormed(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var i = 0
        while i < bytes.count {
            if bytes[i] == percent {
                guard i + 2 < bytes.count,
                      Hex.value(ofDigit: bytes[i + 1]) != nil, Hex.value(ofDigit: bytes[i + 2]) != nil
                else { return false }
                i += 3
            } else {
                i += 1
            }
        }
        return true
    }
}
