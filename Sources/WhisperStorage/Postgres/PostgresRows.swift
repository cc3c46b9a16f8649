import WhisperProtocol

/// A query result in text format: column names and rows of optional strings (nil = NULL),
/// with typed getters that return nil rather than trap on a missing column, a NULL or an
/// unparsable value.
public struct PostgresRows: Sendable, RandomAccessCollection {
    public let columns: [String]
    public let rows: [PostgresRow]
    /// Rows affected by INSERT/UPDATE/DELETE (`PQcmdTuples`), 0 otherwise.
    public let affectedRows: Int

    public init(columns: [String], values: [[String?]], affectedRows: Int) {
        self.columns = columns
        var index: [String: Int] = [:]
        for (i, name) in columns.enumerated() where index[name] == nil { index[name] = i }
        let shared = PostgresRow.Columns(names: columns, index: index)
        self.rows = values.map { PostgresRow(columns: shared, values: $0) }
        self.affectedRows = affectedRows
    }

    public var startIndex: Int { rows.startIndex }
    public var endIndex: Int { rows.endIndex }
    public subscript(position: Int) -> PostgresRow { rows[position] }
}

/// One result row. Getters take a column name or a zero-based column index.
public struct PostgresRow: Sendable {
    /// Shared by every row of a result, so a row costs one array of values.
    final class Columns: Sendable {
        let names: [String]
        let index: [String: Int]
        init(names: [String], index: [String: Int]) {
            self.names = names
            self.index = index
        }
    }

    let columns: Columns
    /// Raw text values; nil is SQL NULL.
    public let values: [String?]

    public func string(_ column: Int) -> String? {
        values.indices.contains(column) ? values[column] : nil
    }

    public func string(_ column: String) -> String? {
        columns.index[column].flatMap { string($0) }
    }

    public func int64(_ column: Int) -> Int64? { string(column).flatMap { Int64($0) } }
    public func int64(_ column: String) -> Int64? { string(column).flatMap { Int64($0) } }

    public func bool(_ column: Int) -> Bool? { string(column).flatMap(Self.parseBool) }
    public func bool(_ column: String) -> Bool? { string(column).flatMap(Self.parseBool) }

    /// A `bytea` column in hex output format (`\x0a1b…`).
    public func bytes(_ column: Int) -> [UInt8]? { string(column).flatMap(Self.parseBytea) }
    public func bytes(_ column: String) -> [UInt8]? { string(column).flatMap(Self.parseBytea) }

    /// True when the column exists and is NULL.
    public func isNull(_ column: String) -> Bool {
        guard let i = columns.index[column], values.indices.contains(i) else { return false }
        return values[i] == nil
    }

    static func parseBool(_ text: String) -> Bool? {
        switch text {
        case "t", "true": return true
        case "f", "false": return false
        default: return nil
        }
    }

    static func parseBytea(_ text: String) -> [UInt8]? {
        let utf8 = text.utf8
        guard utf8.count >= 2, utf8.starts(with: [UInt8(ascii: "\\"), UInt8(ascii: "x")]) else { return nil }
        return Hex.decode(utf8.dropFirst(2))
    }
}

extension PostgresRows {
    /// Convenience for single-row look-ups: `rows.first?.int64("n")` reads the same.
    public func string(_ row: Int, _ column: String) -> String? {
        rows.indices.contains(row) ? rows[row].string(column) : nil
    }
}
