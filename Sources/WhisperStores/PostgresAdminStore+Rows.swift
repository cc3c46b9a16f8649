import WhisperProtocol
import WhisperServices
import WhisperStorage

/// The columns the admin statements select, and their rows as records. Times come back as
/// epoch milliseconds (docs/protocol.md "Encodings").
extension PostgresAdminStore {
    package static let reportColumns = """
        id, reporter_id, whisper_id, reason, details, message_id, verified, status, action, note, \
        (extract(epoch FROM created_at) * 1000)::bigint AS created_ms, \
        (extract(epoch FROM reviewed_at) * 1000)::bigint AS reviewed_ms
        """
    package static let banColumns = """
        whisper_id, reason, (extract(epoch FROM created_at) * 1000)::bigint AS created_ms, \
        (extract(epoch FROM until) * 1000)::bigint AS until_ms
        """
    package static let auditColumns = """
        id, actor, action, target, client_address, details::text AS details, \
        (extract(epoch FROM created_at) * 1000)::bigint AS created_ms
        """

    package static func all<T>(_ rows: PostgresRows, _ read: (PostgresRow) -> Result<T, StoreError>) -> Result<[T], StoreError> {
        var records: [T] = []
        records.reserveCapacity(rows.count)
        for row in rows {
            switch read(row) {
            case .success(let record): records.append(record)
            case .failure(let error): return .failure(error)
            }
        }
        return .success(records)
    }

    package static func report(_ row: PostgresRow) -> Result<ReportRecord, StoreError> {
        guard let id = row.int64("id"), let reporter = row.string("reporter_id"), let whisperId = row.string("whisper_id"),
              let reason = row.string("reason"), let verified = row.bool("verified"),
              let status = row.string("status").flatMap(ReportRecord.Status.init), let created = row.int64("created_ms")
        else { return .failure(.unexpectedReply("reports row")) }
        return .success(ReportRecord(id: id, reporterId: reporter, whisperId: whisperId, reason: reason,
                                     details: row.string("details"), messageId: row.string("message_id"), verified: verified,
                                     status: status, createdAtMillis: created, reviewedAtMillis: row.int64("reviewed_ms"),
                                     action: row.string("action").flatMap(AdminReviewPayload.Action.init),
                                     note: row.string("note")))
    }

    package static func ban(_ row: PostgresRow) -> Result<BanRecord, StoreError> {
        guard let whisperId = row.string("whisper_id"), let reason = row.string("reason"), let created = row.int64("created_ms")
        else { return .failure(.unexpectedReply("bans row")) }
        return .success(BanRecord(whisperId: whisperId, reason: reason, createdAtMillis: created, untilMillis: row.int64("until_ms")))
    }

    package static func auditEvent(_ row: PostgresRow) -> Result<AuditRecord, StoreError> {
        guard let id = row.int64("id"), let actor = row.string("actor"), let action = row.string("action"),
              let details = row.string("details"), let created = row.int64("created_ms")
        else { return .failure(.unexpectedReply("audit_events row")) }
        return .success(AuditRecord(id: id, actor: actor, action: action, target: row.string("target"),
                                    clientAddress: row.string("client_address"), detailsJSON: details,
                                    createdAtMillis: created))
    }
}
