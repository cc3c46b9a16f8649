import WhisperProtocol

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
