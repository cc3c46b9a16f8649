// RFC 8259 §7: `"` and `\` and U+0000–U+001F must be escaped; everything else may appear as is.
// Swift strings are always valid Unicode, so the output is always valid UTF-8.
//
// Escapes used: \" \\ \b \f \n \r \t, and \u00XX (lowercase hex) for the other control characters.
// `/` and U+007F and above are written unescaped.

extension JSONWriter {
    mutating func appendQuoted(_ string: String) {
        bytes.append(ASCII.quote)
        var string = string
        string.withUTF8 { utf8 in appendEscaped(utf8) }
        bytes.append(ASCII.quote)
    }

    /// Copies runs of safe bytes in one `append`, escaping the few bytes that need it.
    mutating func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        var runStart = 0
        var i = 0
        let count = utf8.count
        while i < count {
            let byte = utf8[i]
            guard byte < 0x20 || byte == ASCII.quote || byte == ASCII.backslash else {
                i += 1
                continue
            }
            if runStart < i { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<i])) }
            appendEscape(for: byte)
            i += 1
            runStart = i
        }
        if runStart < count { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<count])) }
    }

    mutating func appendEscape(for byte: UInt8) {
        bytes.append(ASCII.backslash)
        switch byte {
        case ASCII.quote: bytes.append(ASCII.quote)
        case ASCII.backslash: bytes.append(ASCII.backslash)
        case 0x08: bytes.append(UInt8(ascii: "b"))
        case 0x0C: bytes.append(UInt8(ascii: "f"))
        case ASCII.lineFeed: bytes.append(UInt8(ascii: "n"))
        case ASCII.carriageReturn: bytes.append(UInt8(ascii: "r"))
        case ASCII.tab: bytes.append(UInt8(ascii: "t"))
        default:
            bytes.append(UInt8(ascii: "u"))
            bytes.append(ASCII.zero)
            bytes.append(ASCII.zero)
            bytes.append(Hex.digit(byte >> 4))
            bytes.append(Hex.digit(byte))
        }
    }
}

/// Decimal text of an `Int64` (no allocation beyond the destination's growth).
func appendDecimal(_ value: Int64, to bytes: inout [UInt8]) {
    var magnitude = value.magnitude
    if value < 0 { bytes.append(ASCII.minus) }
    var digitCount = 1
    var probe = magnitude
    while probe >= 10 {
        probe /= 10
        digitCount += 1
    }
    let end = bytes.count + digitCount
    bytes.append(contentsOf: repeatElement(ASCII.zero, count: digitCount))
    bytes.withUnsafeMutableBufferPointer { buffer in
        var position = end
        repeat {
            position -= 1
            buffer[position] = ASCII.zero &+ UInt8(truncatingIfNeeded: magnitude % 10)
            magnitude /= 10
        } while magnitude > 0
    }
}
