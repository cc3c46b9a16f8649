import WhisperProtocol
import WhisperRuntime
import WhisperServices
import WhisperStorage

/// `reports`, `bans` and `audit_events` for the admin API through the PostgreSQL worker
/// pool; completions come back on `loop`. Each change and its audit row are one
/// transaction. Rows are read back by `PostgresAdminStore+Rows`.
package final class PostgresAdminStore: AdminStore {
    let pool: PostgresPool?
    let loop: EventLoop

    package init(pool: PostgresPool?, loop: EventLoop) {
        self.pool = pool
        self.loop = loop
    }

    /// The holder of `WHISPER_ADMIN_TOKEN`: the only admin identity there is.
    package static let actor = "admin"

    package static let countsSQL = """
        SELECT (SELECT count(*) FROM users) AS users,
               (SELECT count(*) FROM reports WHERE status = 'open') AS open_reports,
               (SELECT count(*) FROM bans WHERE until IS NULL OR until > now()) AS active_bans
        """

    package static let reportsSQL = "SELECT \(reportColumns) FROM reports WHERE status = $1 AND id > $2::bigint ORDER BY id LIMIT $3::bigint"
    package static let lockReportSQL = "SELECT \(reportColumns) FROM reports WHERE id = $1::bigint FOR UPDATE"
    package static let reviewSQL = """
        UPDATE reports SET status = 'reviewed', reviewed_at = now(), action = $2, note = $3
        WHERE id = $1::bigint RETURNING \(reportColumns)
        """

    /// Insert or replace: a new decision about an identity replaces the old one whole.
    package static let banSQL = """
        INSERT INTO bans (whisper_id, reason, until, created_by) VALUES ($1, $2, to_timestamp($3::bigint / 1000.0), $4)
        ON CONFLICT (whisper_id) DO UPDATE SET reason = EXCLUDED.reason, until = EXCLUDED.until,
            created_at = now(), created_by = EXCLUDED.created_by
        RETURNING \(banColumns)
        """
    package static let unbanSQL = "DELETE FROM bans WHERE whisper_id = $1 RETURNING \(banColumns)"
    package static let bansSQL = "SELECT \(banColumns) FROM bans WHERE whisper_id > $1 ORDER BY whisper_id LIMIT $2::bigint"

    package static let auditSQL = """
        INSERT INTO audit_events (actor, action, target, details, client_address) VALUES ($1, $2, $3, $4::jsonb, $5)
        """
    package static let auditEventsSQL = "SELECT \(auditColumns) FROM audit_events WHERE id < $1::bigint ORDER BY id DESC LIMIT $2::bigint"

    package func counts(completion: @escaping StoreCompletion<AdminCounts>) {
        pool.query(Self.countsSQL, [], on: loop, completion) { rows in
            guard let row = rows.first, let users = row.int64("users"), let reports = row.int64("open_reports"),
                  let bans = row.int64("active_bans")
            else { return .failure(.unexpectedReply("admin counts")) }
            return .success(AdminCounts(users: users, openReports: reports, activeBans: bans))
        }
    }

    package func reports(status: ReportRecord.Status, after: Int64?, limit: Int, completion: @escaping StoreCompletion<[ReportRecord]>) {
        let parameters: [PostgresValue?] = [.text(status.rawValue), .int64(after ?? 0), .int64(Int64(limit) + 1)]
        pool.query(Self.reportsSQL, parameters, on: loop, completion) { Self.all($0, Self.report) }
    }

    package func review(_ id: Int64, _ review: AdminReviewPayload, banReason: String, audit: AuditEntry,
                        completion: @escaping StoreCompletion<ReviewResult?>) {
        pool.transaction(on: loop, completion, { connection throws(PostgresError) -> (PostgresRows, changed: Bool) in
            let current = try connection.query(Self.lockReportSQL, [.int64(id)])
            guard let row = current.first, row.string("status") == ReportRecord.Status.open.rawValue else {
                return (current, false)
            }
            let reviewed = try connection.query(Self.reviewSQL, [.int64(id), .text(review.action.rawValue),
                                                                 review.note.map(PostgresValue.text)])
            if review.action == .ban, let target = row.string("whisper_id") {
                _ = try connection.query(Self.banSQL, [.text(target), .text(banReason), nil, .text(Self.actor)])
            }
            _ = try connection.query(Self.auditSQL, Self.parameters(audit))
            return (reviewed, true)
        }, { rows, changed in
            guard let row = rows.first else { return .success(nil) }
            return Self.report(row).map { ReviewResult(report: $0, changed: changed) }
        })
    }

    package func ban(_ ban: AdminBanPayload, audit: AuditEntry, completion: @escaping StoreCompletion<BanRecord>) {
        let parameters: [PostgresValue?] = [.text(ban.whisperId.string), .text(ban.reason), ban.untilMillis.map(PostgresValue.int64),
                                            .text(Self.actor)]
        pool.transaction(on: loop, completion, { connection throws(PostgresError) in
            let rows = try connection.query(Self.banSQL, parameters)
            _ = try connection.query(Self.auditSQL, Self.parameters(audit))
            return rows
        }, { rows in
            guard let row = rows.first else { return .failure(.unexpectedReply("ban insert without row")) }
            return Self.ban(row)
        })
    }

    package func unban(_ whisperId: WhisperID, audit: AuditEntry, completion: @escaping StoreCompletion<BanRecord?>) {
        pool.transaction(on: loop, completion, { connection throws(PostgresError) in
            let rows = try connection.query(Self.unbanSQL, [.text(whisperId.string)])
            if !rows.isEmpty { _ = try connection.query(Self.auditSQL, Self.parameters(audit)) }
            return rows
        }, { rows in
            guard let row = rows.first else { return .success(nil) }
            return Self.ban(row).map(Optional.some)
        })
    }

    package func bans(after: WhisperID?, limit: Int, completion: @escaping StoreCompletion<[BanRecord]>) {
        pool.query(Self.bansSQL, [.text(after?.string ?? ""), .int64(Int64(limit) + 1)], on: loop, completion) {
            Self.all($0, Self.ban)
        }
    }

    package func auditEvents(before: Int64?, limit: Int, completion: @escaping StoreCompletion<[AuditRecord]>) {
        pool.query(Self.auditEventsSQL, [.int64(before ?? .max), .int64(Int64(limit) + 1)], on: loop, completion) {
            Self.all($0, Self.auditEvent)
        }
    }

    package func audit(_ entry: AuditEntry, completion: @escaping StoreCompletion<Void>) {
        pool.query(Self.auditSQL, Self.parameters(entry), on: loop, completion) { _ in .success(()) }
    }

    package static func parameters(_ audit: AuditEntry) -> [PostgresValue?] {
        [.text(actor), .text(audit.action), audit.target.map(PostgresValue.text), .text(audit.detailsJSON),
         .text(audit.clientAddress)]
    }
}
