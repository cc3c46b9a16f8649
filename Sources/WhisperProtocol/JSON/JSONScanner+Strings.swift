// RFC 8259 §7 strings.
//
//   string = quotation-mark *char quotation-mark
//   char   = unescaped / escape ( " \ / b f n r t / uXXXX )
//   unescaped = %x20-21 / %x23-5B / %x5D-10FFFF      (as valid UTF-8, RFC 8259 §8.1)

extension JSONScanner {
    /// Parses from just after the opening quote to just after the closing quote.
    ///
    /// The fast path skips 8 bytes at a time while none is `"`, `\`, a control character or
    /// non-ASCII; multi-byte sequences are validated in place (RFC 3629 §4), and the `String` is then
    /// created straight from the input.
    mutating func parseStringBody() throws(JSONError) -> String {
        let start = index
        let end = try endOfPlainRun(from: start)
        guard bytes[end] == ASCII.quote else { return try parseEscapedString(start: start, firstEscape: end) }
        index = end + 1
        return try makeString(UnsafeBufferPointer(rebasing: bytes[start..<end]), at: start - 1)
    }

    /// Validates a string like `parseStringBody` without making a `String` (the span scan):
    /// returns whether it contains escapes, i.e. whether its raw bytes differ from its value.
    mutating func skipStringBody() throws(JSONError) -> Bool {
        let start = index
        let end = try endOfPlainRun(from: start)
        guard bytes[end] == ASCII.quote else {
            _ = try parseEscapedString(start: start, firstEscape: end)
            return true
        }
        guard end - start <= limits.maxStringBytes else { throw JSONError(.stringTooLong, at: start - 1) }
        index = end + 1
        return false
    }

    /// From `start` (inside a string) to the first `"` or `\`, whose index it returns; UTF-8 is
    /// validated on the way and control characters rejected.
    @inline(__always)
    func endOfPlainRun(from start: Int) throws(JSONError) -> Int {
        var i = start
        let count = bytes.count
        while true {
            if let base = bytes.baseAddress {
                while count - i >= 8 {
                    let word = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
                    if Self.hasSpecialOrNonASCIIByte(word) { break }
                    i += 8
                }
            }
            guard i < count else { throw JSONError(.unexpectedEnd, at: count) }
            let byte = bytes[i]
            if byte == ASCII.quote || byte == ASCII.backslash { return i }
            if byte < 0x20 { throw JSONError(.controlCharacterInString, at: i) }
            i = byte < 0x80 ? i + 1 : try endOfUTF8Sequence(at: i)
        }
    }

    /// True if any byte of `word` is `"` (0x22), `\` (0x5C), below 0x20 or above 0x7F. Exact as a
    /// boolean (the classic has-zero-byte / has-less-than tricks; false positives only affect
    /// *which* byte is reported, and we only ask whether).
    @inline(__always)
    static func hasSpecialOrNonASCIIByte(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let quotes = word ^ (ones &* 0x22)
        let backslashes = word ^ (ones &* 0x5C)
        let hasQuote = (quotes &- ones) & ~quotes
        let hasBackslash = (backslashes &- ones) & ~backslashes
        let hasControl = (word &- ones &* 0x20) & ~word
        return (hasQuote | hasBackslash | hasControl | word) & highs != 0
    }

    /// Validates the multi-byte UTF-8 sequence whose lead byte is at `position` and returns the index
    /// just past it. RFC 3629 §4: no overlongs, no surrogates (U+D800–DFFF), nothing above U+10FFFF.
    func endOfUTF8Sequence(at position: Int) throws(JSONError) -> Int {
        let lead = bytes[position]
        let length: Int
        var secondRange: ClosedRange<UInt8> = 0x80...0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; secondRange = 0xA0...0xBF
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; secondRange = 0x80...0x9F
        case 0xF0: length = 4; secondRange = 0x90...0xBF
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; secondRange = 0x80...0x8F
        default: throw JSONError(.invalidUTF8, at: position)
        }
        guard bytes.count - position >= length, secondRange.contains(bytes[position + 1]) else {
            throw JSONError(.invalidUTF8, at: position)
        }
        for offset in 2..<length where bytes[position + offset] & 0xC0 != 0x80 {
            throw JSONError(.invalidUTF8, at: position)
        }
        return position + length
    }

    /// `utf8` is already validated; `String(decoding:)` copies it (and re-checks cheaply).
    func makeString(_ utf8: UnsafeBufferPointer<UInt8>, at position: Int) throws(JSONError) -> String {
        guard utf8.count <= limits.maxStringBytes else { throw JSONError(.stringTooLong, at: position) }
        return String(decoding: utf8, as: UTF8.self)
    }

    /// Slow path once a backslash is seen: decode into `scratch`, validating raw multi-byte
    /// sequences as they are copied; escapes only ever produce complete, valid sequences.
    mutating func parseEscapedString(start: Int, firstEscape: Int) throws(JSONError) -> String {
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<firstEscape]))
        var i = firstEscape
        let count = bytes.count
        while i < count {
            let byte = bytes[i]
            if byte == ASCII.quote {
                index = i + 1
                let result = scratch.withUnsafeBufferPointer { decoded in
                    Result { () throws(JSONError) in try makeString(decoded, at: start - 1) }
                }
                return try result.get()
            }
            if byte < 0x20 { throw JSONError(.controlCharacterInString, at: i) }
            if byte < 0x80, byte != ASCII.backslash {
                scratch.append(byte)
                i += 1
                continue
            }
            if byte >= 0x80 {
                let end = try endOfUTF8Sequence(at: i)
                scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[i..<end]))
                i = end
                continue
            }
            guard i + 1 < count else { throw JSONError(.unexpectedEnd, at: count) }
            switch bytes[i + 1] {
            case ASCII.quote: scratch.append(ASCII.quote)
            case ASCII.backslash: scratch.append(ASCII.backslash)
            case ASCII.slash: scratch.append(ASCII.slash)
            case UInt8(ascii: "b"): scratch.append(0x08)
            case UInt8(ascii: "f"): scratch.append(0x0C)
            case UInt8(ascii: "n"): scratch.append(ASCII.lineFeed)
            case UInt8(ascii: "r"): scratch.append(ASCII.carriageReturn)
            case UInt8(ascii: "t"): scratch.append(ASCII.tab)
            case UInt8(ascii: "u"):
                let (scalar, length) = try parseUnicodeEscape(at: i)
                appendUTF8(scalar)
                i += length
                continue
            default:
                throw JSONError(.invalidEscape, at: i)
            }
            i += 2
        }
        throw JSONError(.unexpectedEnd, at: count)
    }

    /// `\uXXXX`, or a `\uD8xx\uDCxx` surrogate pair (RFC 8259 §7). A high surrogate not followed by
    /// a low one, or a low one alone, is rejected: it has no UTF-8 form.
    /// Returns the scalar value and the number of input bytes consumed (6 or 12).
    func parseUnicodeEscape(at position: Int) throws(JSONError) -> (UInt32, Int) {
        let first = try hexQuad(at: position + 2)
        switch first {
        case 0xD800...0xDBFF:
            guard position + 12 <= bytes.count,
                  bytes[position + 6] == ASCII.backslash,
                  bytes[position + 7] == UInt8(ascii: "u")
            else { throw JSONError(.loneSurrogate, at: position) }
            let second = try hexQuad(at: position + 8)
            guard (0xDC00...0xDFFF).contains(second) else { throw JSONError(.loneSurrogate, at: position) }
            return (0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00), 12)
        case 0xDC00...0xDFFF:
            throw JSONError(.loneSurrogate, at: position)
        default:
            return (first, 6)
        }
    }

    func hexQuad(at position: Int) throws(JSONError) -> UInt32 {
        guard position + 4 <= bytes.count else { throw JSONError(.invalidUnicodeEscape, at: position - 2) }
        var value: UInt32 = 0
        for offset in 0..<4 {
            guard let digit = Hex.value(ofDigit: bytes[position + offset]) else {
                throw JSONError(.invalidUnicodeEscape, at: position - 2)
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    /// UTF-8 encoding of a scalar value known to be ≤ 0x10FFFF and not a surrogate.
    mutating func appendUTF8(_ scalar: UInt32) {
        switch scalar {
        case 0..<0x80:
            scratch.append(UInt8(truncatingIfNeeded: scalar))
        case 0x80..<0x800:
            scratch.append(UInt8(truncatingIfNeeded: 0xC0 | scalar >> 6))
            scratch.append(UInt8(truncatingIfNeeded: 0x80 | scalar & 0x3F))
        case 0x800..<0x10000:
            scratch.append(UInt8(truncatingIfNeeded: 0xE0 | scalar >> 12))
            scratch.append(UInt8(truncatingIfNeeded: 0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(truncatingIfNeeded: 0x80 | scalar & 0x3F))
        default:
            scratch.append(UInt8(truncatingIfNeeded: 0xF0 | scalar >> 18))
            scratch.append(UInt8(truncatingIfNeeded: 0x80 | scalar >> 12 & 0x3F))
            scratch.append(UInt8(truncatingIfNeeded: 0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(truncatingIfNeeded: 0x80 | scalar & 0x3F))
        }
    }
}
