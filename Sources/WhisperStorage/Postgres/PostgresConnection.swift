#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import Foundation
internal import CPostgres

/// One libpq connection, owned by one thread at a time: a pool worker (blocking, handed to
/// the jobs running on that thread) or, once handed over, an event loop's `PostgresPipeline`
/// (non-blocking, pipeline mode). Not `Sendable`.
///
/// Only parameterized statements (`PQexecParams`) are offered, so values never reach SQL
/// text; the one exception is `executeScript`, used by the migrator for trusted files.
public final class PostgresConnection {
    private(set) var handle: OpaquePointer?
    /// Server-side prepared statements of this session, by SQL text and parameter types: the
    /// server's statements are a fixed set, so each is parsed and planned once per connection
    /// instead of on every call (most of PostgreSQL's CPU for the short statements here).
    var prepared: [PreparedKey: String] = [:]
    static let maxPreparedStatements = 256
    private var statementSerial = 0

    struct PreparedKey: Hashable {
        let sql: String
        let types: [UInt32]
    }

    private init(handle: OpaquePointer) {
        self.handle = handle
    }

    deinit {
        if let handle { PQfinish(handle) }
    }

    /// Opens a connection (blocking, bounded by `connect_timeout`) and applies the session
    /// settings.
    static func connect(_ configuration: PostgresConfiguration) throws(PostgresError) -> PostgresConnection {
        let parameters = configuration.connectionParameters
        let keywords = parameters.map { strdup($0.0) }
        let values = parameters.map { strdup($0.1) }
        defer {
            keywords.forEach { free($0) }
            values.forEach { free($0) }
        }
        var keywordPointers = keywords.map { UnsafePointer($0) } + [nil]
        var valuePointers = values.map { UnsafePointer($0) } + [nil]
        let handle = keywordPointers.withUnsafeMutableBufferPointer { k in
            valuePointers.withUnsafeMutableBufferPointer { v in
                PQconnectdbParams(k.baseAddress, v.baseAddress, 1)
            }
        }
        guard let handle else { throw .connectionFailed("out of memory") }
        let connection = PostgresConnection(handle: handle)
        guard PQstatus(handle) == CONNECTION_OK else {
            throw .connectionFailed(connection.lastErrorMessage)
        }
        // libpq prints NOTICEs ("relation … already exists, skipping") to stderr by default,
        // which would interleave with the JSON log. They are informational: drop them.
        _ = PQsetNoticeProcessor(handle, { _, _ in }, nil)
        if configuration.statementTimeoutMillis > 0 {
            _ = try connection.query(
                "SELECT set_config('statement_timeout', $1, false)",
                [.text(String(configuration.statementTimeoutMillis))])
        }
        return connection
    }

    /// False once libpq has marked the connection bad.
    var isOK: Bool {
        guard let handle else { return false }
        return PQstatus(handle) == CONNECTION_OK
    }

    /// True when the session is inside a transaction block (a job forgot COMMIT, or one
    /// failed mid-transaction).
    var isInTransaction: Bool {
        guard let handle else { return false }
        return PQtransactionStatus(handle) != PQTRANS_IDLE
    }

    /// A cheap check before handing the connection to a job. An idle session that became
    /// readable has received something unsolicited — after a server restart, the FATAL
    /// "terminating connection" message and then EOF. libpq treats the message as a notice
    /// and only the next read sees the EOF, so keep consuming while the socket is readable:
    /// then libpq marks the connection bad and the worker reconnects, instead of failing
    /// the job's query on a session that is already gone.
    func checkIdleHealth() -> Bool {
        guard let handle, PQstatus(handle) == CONNECTION_OK else { return false }
        var pfd = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
        var rounds = 0
        while rounds < 8, poll(&pfd, 1, 0) > 0 {
            rounds += 1
            if PQconsumeInput(handle) == 0 { return false }
            while let notify = PQnotifies(handle) { PQfreemem(notify) }
            pfd.revents = 0
        }
        return PQstatus(handle) == CONNECTION_OK
    }

    /// Runs one parameterized statement and returns its rows (text format).
    public func query(_ sql: String, _ parameters: [PostgresValue?] = []) throws(PostgresError) -> PostgresRows {
        guard let handle else { throw .connectionFailed("connection closed") }
        let encoded = try PostgresParameters(parameters)
        if let name = try statementName(sql, types: encoded.types, handle: handle) {
            return try consume(encoded.withValues { PQexecPrepared(handle, name, $0, $1, nil, nil, 0) })
        }
        return try consume(encoded.withTypesAndValues { PQexecParams(handle, sql, $0, $1, $2, nil, nil, 0) })
    }

    /// The prepared statement for `sql` with these parameter types, preparing it on first
    /// use; `nil` once the cache is full (the statement then runs unprepared).
    private func statementName(_ sql: String, types: [UInt32], handle: OpaquePointer) throws(PostgresError) -> String? {
        let key = PreparedKey(sql: sql, types: types)
        if let name = prepared[key] { return name }
        guard prepared.count < Self.maxPreparedStatements else { return nil }
        let name = nextStatementName()
        let result = types.withUnsafeBufferPointer { typePointer in
            PQprepare(handle, name, sql, Int32(types.count), typePointer.baseAddress)
        }
        _ = try consume(result)
        prepared[key] = name
        return name
    }

    /// A statement name not used before on this session.
    func nextStatementName() -> String {
        statementSerial += 1
        return "whisper_\(statementSerial)"
    }

    /// Runs trusted SQL that may hold several statements (simple query protocol). Only for
    /// migration files shipped with the server: it takes no parameters by design.
    func executeScript(_ sql: String) throws(PostgresError) {
        guard let handle else { throw .connectionFailed("connection closed") }
        _ = try consume(PQexec(handle, sql))
    }

    /// Closes the socket now; later calls fail with `connectionFailed`.
    func close() {
        if let handle { PQfinish(handle) }
        handle = nil
    }

    // MARK: Results

    /// The rows of `result`, or its error; clears it.
    func consume(_ result: OpaquePointer?) throws(PostgresError) -> PostgresRows {
        guard let result else {
            throw .connectionFailed(lastErrorMessage)
        }
        defer { PQclear(result) }
        switch PQresultStatus(result) {
        case PGRES_TUPLES_OK, PGRES_COMMAND_OK, PGRES_EMPTY_QUERY:
            return rows(of: result)
        default:
            throw error(from: result)
        }
    }

    private func rows(of result: OpaquePointer) -> PostgresRows {
        let fieldCount = Int(PQnfields(result))
        let rowCount = Int(PQntuples(result))
        var columns: [String] = []
        columns.reserveCapacity(fieldCount)
        for field in 0..<fieldCount {
            columns.append(PQfname(result, Int32(field)).map { String(cString: $0) } ?? "")
        }
        var values: [[String?]] = []
        values.reserveCapacity(rowCount)
        for row in 0..<rowCount {
            var line: [String?] = []
            line.reserveCapacity(fieldCount)
            for field in 0..<fieldCount {
                let r = Int32(row), f = Int32(field)
                if PQgetisnull(result, r, f) != 0 {
                    line.append(nil)
                } else if let pointer = PQgetvalue(result, r, f) {
                    let length = Int(PQgetlength(result, r, f))
                    let bytes = UnsafeRawBufferPointer(start: pointer, count: max(0, length))
                    line.append(String(decoding: bytes, as: UTF8.self))
                } else {
                    line.append(nil)
                }
            }
            values.append(line)
        }
        let affected = PQcmdTuples(result).map { Int(String(cString: $0)) ?? 0 } ?? 0
        return PostgresRows(columns: columns, values: values, affectedRows: affected)
    }

    private func error(from result: OpaquePointer) -> PostgresError {
        let sqlState = field(result, "C")
        let message = field(result, "M") ?? lastErrorMessage
        // A failed statement on a connection that is now bad is a connection error, whatever
        // the SQLSTATE: the statement may or may not have run, and the session is gone.
        if !isOK { return .connectionFailed(message) }
        guard let sqlState else { return .connectionFailed(message) }
        return PostgresError.fromServer(sqlState: sqlState, message: message, constraint: field(result, "n"))
    }

    private func field(_ result: OpaquePointer, _ code: Unicode.Scalar) -> String? {
        PQresultErrorField(result, Int32(code.value)).map { String(cString: $0) }
    }

    var lastErrorMessage: String {
        guard let handle, let message = PQerrorMessage(handle) else { return "unknown libpq error" }
        // One line: libpq adds hints after "\n\t", which would split a log line.
        let text = String(cString: message).split(whereSeparator: { $0 == "\n" || $0 == "\t" })
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return text.joined(separator: " ")
    }
}
