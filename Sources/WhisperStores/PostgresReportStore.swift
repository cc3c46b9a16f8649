import WhisperProtocol
import WhisperRuntime
import WhisperServices
import WhisperStorage

/// `reports` through the PostgreSQL worker pool; completions come back on `loop`.
package final class PostgresReportStore: ReportStore {
    private let pool: PostgresPool?
    private let loop: EventLoop

    package init(pool: PostgresPool?, loop: EventLoop) {
        self.pool = pool
        self.loop = loop
    }

    /// Inserts only when the reported identity exists (no row: unknown id), in one statement.
    package static let insertSQL = """
        INSERT INTO reports (reporter_id, whisper_id, reason, details, message_id, verified)
        SELECT $1, u.whisper_id, $3, $4, $5, $6 FROM users u WHERE u.whisper_id = $2
        RETURNING id
        """

    package func insert(_ report: ReportPayload, reporter: WhisperID, verified: Bool, completion: @escaping StoreCompletion<Int64?>) {
        let parameters: [PostgresValue?] = [.text(reporter.string), .text(report.whisperId.string), .text(report.reason.rawValue),
                                            report.details.map(PostgresValue.text), report.messageId.map { .text($0.string) },
                                            .text(verified ? "true" : "false")]
        pool.query(Self.insertSQL, parameters, on: loop, completion) { rows in
            guard let row = rows.first else { return .success(nil) }
            guard let id = row.int64("id") else { return .failure(.unexpectedReply("reports insert without id")) }
            return .success(id)
        }
    }
}
