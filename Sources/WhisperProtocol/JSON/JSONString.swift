/// JSON string escaping (RFC 8259 §7), the one copy for protocol frames, HTTP error bodies and
/// log lines (this module depends on nothing, so all of them may import it).
///
/// `"`, `\` and U+0000–U+001F must be escaped; everything else may appear as is. Escapes used:
/// `\"` `\\` `\b` `\f` `\n` `\r` `\t` (as ECMAScript's JSON.stringify emits them), and `\u00XX`
/// (lower-case hex) for the other control characters. `/` and non-ASCII are written unescaped.
/// Swift strings are always valid Unicode, so the output is always valid UTF-8.
public enum JSONString {
    public enum Escaping: Sendable {
        /// Only what RFC 8259 requires (frames and HTTP bodies: the smallest output).
        case required
        /// Also DEL as `\u007f` and U+2028/U+2029 as `\u2028`/`\u2029`: raw, they are line
        /// terminators to JavaScript before ES2019, and DEL is a terminal control. Log lines use
        /// it so a line stays one line wherever it is pasted.
        case javaScriptSafe
    }

    /// Appends `"` + escaped `text` + `"`.
    public static func appendQuoted(_ text: String, to out: inout [UInt8], escaping: Escaping = .required) {
        out.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in appendEscaped(utf8, to: &out, escaping: escaping) }
        out.append(UInt8(ascii: "\""))
    }

    public static func quoted(_ text: String, escaping: Escaping = .required) -> String {
        var out: [UInt8] = []
        appendQuoted(text, to: &out, escaping: escaping)
        return String(decoding: out, as: UTF8.self)
    }

    /// Copies runs of safe bytes in one `append`, escaping the few bytes that need it.
    static func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>, to out: inout [UInt8], escaping: Escaping) {
        let javaScriptSafe = escaping == .javaScriptSafe
        var runStart = 0
        var i = 0
        let count = utf8.count
        while i < count {
            let byte = utf8[i]
            let escapedLength: Int
            if byte < 0x20 || byte == ASCII.quote || byte == ASCII.backslash || (javaScriptSafe && byte == 0x7F) {
                escapedLength = 1
            } else if javaScriptSafe, byte == 0xE2, i + 2 < count, utf8[i + 1] == 0x80,
                      utf8[i + 2] == 0xA8 || utf8[i + 2] == 0xA9 {
                // U+2028 / U+2029 are E2 80 A8 / E2 80 A9.
                escapedLength = 3
            } else {
                i += 1
                continue
            }
            if runStart < i { out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<i])) }
            if escapedLength == 3 {
                out.append(contentsOf: utf8[i + 2] == 0xA8 ? #"\u2028"#.utf8 : #"\u2029"#.utf8)
            } else {
                appendEscape(for: byte, to: &out)
            }
            i += escapedLength
            runStart = i
        }
        if runStart < count { out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<count])) }
    }

    private static func appendEscape(for byte: UInt8, to out: inout [UInt8]) {
        out.append(ASCII.backslash)
        switch byte {
        case ASCII.quote: out.append(ASCII.quote)
        case ASCII.backslash: out.append(ASCII.backslash)
        case 0x08: out.append(UInt8(ascii: "b"))
        case 0x0C: out.append(UInt8(ascii: "f"))
        case ASCII.lineFeed: out.append(UInt8(ascii: "n"))
        case ASCII.carriageReturn: out.append(UInt8(ascii: "r"))
        case ASCII.tab: out.append(UInt8(ascii: "t"))
        default:
            out.append(UInt8(ascii: "u"))
            out.append(ASCII.zero)
            out.append(ASCII.zero)
            out.append(Hex.digit(byte >> 4))
            out.append(Hex.digit(byte))
        }
    }
}
