import WhisperProtocol

/// The moderation tables (PostgreSQL `reports`, `bans`, `audit_events`) for the admin API.
/// Every mutation writes its `audit_events` row in the same transaction as the change, so
/// an action is never applied unaudited nor audited unapplied. Completions run on the
/// caller's loop. List methods answer up to `limit + 1` rows so the caller can tell whether
/// another page follows.
public protocol AdminStore {
    func counts(completion: @escaping StoreCompletion<AdminCounts>)

    /// Reports with `status`, oldest first, with ids above `after`.
    func reports(status: ReportRecord.Status, after: Int64?, limit: Int, completion: @escaping StoreCompletion<[ReportRecord]>)

    /// Marks an open report reviewed; for `.ban` also bans its reported identity with
    /// `banReason`, permanently. `nil` for an unknown id.
    func review(_ id: Int64, _ review: AdminReviewPayload, banReason: String, audit: AuditEntry,
                completion: @escaping StoreCompletion<ReviewResult?>)

    /// Inserts or replaces the ban of `ban.whisperId`.
    func ban(_ ban: AdminBanPayload, audit: AuditEntry, completion: @escaping StoreCompletion<BanRecord>)

    /// Deletes the ban row (in force or expired); `nil` when there was none.
    func unban(_ whisperId: WhisperID, audit: AuditEntry, completion: @escaping StoreCompletion<BanRecord?>)

    /// Ban rows, by Whisper ID, after `after`.
    func bans(after: WhisperID?, limit: Int, completion: @escaping StoreCompletion<[BanRecord]>)

    /// Audit events, newest first, with ids below `before`.
    func auditEvents(before: Int64?, limit: Int, completion: @escaping StoreCompletion<[AuditRecord]>)

    /// Writes an audit row of its own, for an action that changes nothing in the database
    /// (a node's log level).
    func audit(_ entry: AuditEntry, completion: @escaping StoreCompletion<Void>)

    /// Writes `entry` only if `whisperId` has a `users` row, in one statement; `false` (and
    /// no row) when it has none — for an action on a registered identity outside the database
    /// (logging it out everywhere).
    func audit(_ entry: AuditEntry, ifRegistered whisperId: WhisperID, completion: @escaping StoreCompletion<Bool>)

    /// What the database knows about `whisperId`, with at most `deviceLimit` devices (most
    /// recently active first); `nil` when no table mentions it.
    func user(_ whisperId: WhisperID, deviceLimit: Int, completion: @escaping StoreCompletion<AdminUserRecord?>)
}

/// Totals for `GET /admin/stats` (each one index or small-table count).
public struct AdminCounts: Sendable, Equatable {
    public let users: Int64
    public let openReports: Int64
    public let activeBans: Int64

    public init(users: Int64, openReports: Int64, activeBans: Int64) {
        self.users = users
        self.openReports = openReports
        self.activeBans = activeBans
    }
}

/// The `audit_events` row an admin action writes: what, on what, from where, with which
/// details (a JSON object). The time is the database's.
public struct AuditEntry: Sendable, Equatable {
    public let action: String
    public let target: String?
    public let clientAddress: String
    public let detailsJSON: String

    public init(action: String, target: String?, clientAddress: String, detailsJSON: String) {
        self.action = action
        self.target = target
        self.clientAddress = clientAddress
        self.detailsJSON = detailsJSON
    }
}

/// What a review found: the report as it now stands, and whether this call reviewed it
/// (`false`: it was reviewed before, and nothing changed).
public struct ReviewResult: Sendable, Equatable {
    public let report: ReportRecord
    public let changed: Bool

    public init(report: ReportRecord, changed: Bool) {
        self.report = report
        self.changed = changed
    }
}
