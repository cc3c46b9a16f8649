/// A small JSON string writer (RFC 8259 §7). Short escapes for `"`, `\`, BS, FF, LF, CR, TAB
/// (as ECMAScript's JSON.stringify emits them); every other control below U+0020 as `\u00XX`
/// (lowercase hex). Everything else, including non-ASCII, is copied as UTF-8.
public enum JSONString {
    /// Appends `"` + escaped `text` + `"`.
    public static func appendQuoted(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        appendEscaped(text, to: &out)
        out.append(UInt8(ascii: "\""))
    }

    public static func quoted(_ text: String) -> String {
        var out: [UInt8] = []
        appendQuoted(text, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    public static func appendEscaped(_ text: String, to out: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): out.append(contentsOf: #"\\"#.utf8)
            case 0x08: out.append(contentsOf: #"\b"#.utf8)
            case 0x0C: out.append(contentsOf: #"\f"#.utf8)
            case 0x0A: out.append(contentsOf: #"\n"#.utf8)
            case 0x0D: out.append(contentsOf: #"\r"#.utf8)
            case 0x09: out.append(contentsOf: #"\t"#.utf8)
            case 0x00..<0x20:
                out.append(contentsOf: #"\u00"#.utf8)
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0F)])
            default:
                out.append(byte)
            }
        }
    }
}
