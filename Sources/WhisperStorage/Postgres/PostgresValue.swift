/// A query parameter. Every value travels in libpq's text format; the type OID tells the
/// server how to read it where the SQL alone does not (`SELECT $1` with an `int64`).
/// SQL NULL is `nil` in the parameter array.
///
/// Timestamps: pass epoch milliseconds as `.int64` and convert in SQL
/// (`to_timestamp($1::bigint / 1000.0)`), or an ISO-8601 string as `.text`; read them back as
/// `(extract(epoch FROM col) * 1000)::bigint`.
public enum PostgresValue: Sendable, Equatable {
    case text(String)
    case int64(Int64)
    case bool(Bool)
    /// Sent as `\x` hex text, the form `bytea_output = hex` also returns.
    case bytea([UInt8])

    /// 0 lets the server infer the type, so a text parameter can stand for a `uuid`,
    /// `timestamptz` or `jsonb` column; fixing it to `text` (25) would break `uuid = $1`.
    var typeOID: UInt32 {
        switch self {
        case .text: return 0
        case .int64: return 20
        case .bool: return 16
        case .bytea: return 17
        }
    }

    /// The text-format encoding libpq sends.
    var textEncoding: String {
        switch self {
        case .text(let value): return value
        case .int64(let value): return String(value)
        case .bool(let value): return value ? "t" : "f"
        case .bytea(let bytes): return "\\x" + Hex.encode(bytes)
        }
    }
}

/// Lower-case hex, as PostgreSQL writes `bytea`.
enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes hex digits (either case); nil on an odd length or a non-hex character.
    static func decode<S: Collection>(_ text: S) -> [UInt8]? where S.Element == UInt8 {
        guard text.count % 2 == 0 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(text.count / 2)
        var high: UInt8? = nil
        for char in text {
            guard let nibble = nibble(char) else { return nil }
            if let h = high {
                out.append(h << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        return out
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
