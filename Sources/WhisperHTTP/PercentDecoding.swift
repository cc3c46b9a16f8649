/// Percent-decoding of URI components (RFC 3986 §2.1). `+` is left as a literal plus: RFC 3986
/// gives it no meaning, and mobile URL builders (e.g. Foundation's URLComponents) do not encode it
/// in query values, so reading it as a space would corrupt opaque cursors and tokens.
enum PercentDecoding {
    /// Decoded bytes, or nil when a "%" is not followed by two hex digits.
    static func decodeBytes<S: StringProtocol>(_ encoded: S) -> [UInt8]? {
        let utf8 = encoded.utf8
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count)
        var i = utf8.startIndex
        while i < utf8.endIndex {
            let byte = utf8[i]
            if byte == ASCII.percent {
                let first = utf8.index(after: i)
                guard first < utf8.endIndex else { return nil }
                let second = utf8.index(after: first)
                guard second < utf8.endIndex,
                      let high = ASCII.hexValue(utf8[first]), let low = ASCII.hexValue(utf8[second])
                else { return nil }
                out.append(high &<< 4 | low)
                i = utf8.index(after: second)
            } else {
                out.append(byte)
                i = utf8.index(after: i)
            }
        }
        return out
    }

    /// Decoded text, or nil on malformed escapes or when the bytes are not valid UTF-8.
    static func decode<S: StringProtocol>(_ encoded: S) -> String? {
        // Fast path: nothing to decode, and the input is already a valid String.
        if !encoded.utf8.contains(ASCII.percent) { return String(encoded) }
        guard let bytes = decodeBytes(encoded) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }

    /// Whether every "%" in `bytes` starts a valid `pct-encoded` triplet.
    static func isWellFormed(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var i = 0
        while i < bytes.count {
            if bytes[i] == ASCII.percent {
                guard i + 2 < bytes.count,
                      ASCII.hexValue(bytes[i + 1]) != nil, ASCII.hexValue(bytes[i + 2]) != nil
                else { return false }
                i += 3
            } else {
                i += 1
            }
        }
        return true
    }
}
