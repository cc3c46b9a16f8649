import WhisperOps
import WhisperProtocol

/// The operators' use cases behind the admin API (docs/protocol.md "Admin API"; the caller
/// has already presented the admin token). Every change writes its `audit_events` row in the
/// same transaction (the store's contract), naming the action, its target and the client
/// address it came from. Reads are not audited.
///
/// A ban, top to bottom:
/// 1. `until`, when given, must lie in the future → else `INVALID_PAYLOAD`;
/// 2. the ban row is inserted or replaced (a Whisper ID nobody registered may be banned too:
///    it is then never minted), with its audit row;
/// 3. every session of the identity dies in Redis, and in the same script a revocation
///    notice with reason `banned` goes to every node: each closes the identity's sockets
///    with `session_revoked {reason:"banned"}` and 4003, and forgets the identity's cached
///    recipient status (so sends to it are `FORBIDDEN` at once). Later logins get
///    `USER_BANNED` from the identity store's ban check; old tokens are gone.
/// If step 3 fails the ban stands (logins are refused) but sockets may live on: the caller
/// gets `INTERNAL_ERROR` and repeats the ban, which is idempotent.
///
/// An unban deletes the row (with its audit row) and announces it, so every node forgets
/// the cached `banned` status; the identity may log in again at once. A review marks an open
/// report reviewed; `ban` then bans the reported identity as above. Reviewing a report
/// already reviewed changes nothing and answers it as it stands (`changed: false`).
///
/// Logging an identity out everywhere (`revokeSessions`) is a ban's step 3 without the ban.
///
/// A log-level change applies to this node's log only (each node has its own admin
/// listener); its audit row is written first, so the level never changes unaudited.
public final class AdminService {
    public typealias Completion<T> = (Result<T, ServiceError>) -> Void

    /// A completed ban: the row and how many sessions it killed.
    public struct Banned: Sendable, Equatable {
        public let ban: BanRecord
        public let revokedSessions: Int
    }

    private let store: AdminStore
    private let auth: AuthService
    private let notices: BanNotices
    private let log: Log
    private let now: () -> Int64

    public init(store: AdminStore, auth: AuthService, notices: BanNotices, log: Log, now: @escaping () -> Int64) {
        self.store = store
        self.auth = auth
        self.notices = notices
        self.log = log
        self.now = now
    }

    // MARK: Log level

    /// Sets this node's minimum log level after writing the audit row (target: the node);
    /// answers the level before.
    public func setLogLevel(_ level: LogLevel, node: String, clientAddress: String, completion: @escaping Completion<LogLevel>) {
        let previous = log.level
        let details = "{\"from\":\"\(previous.name)\",\"to\":\"\(level.name)\"}"
        store.audit(AuditEntry(action: "log_level", target: node, clientAddress: clientAddress, detailsJSON: details)) { [log] result in
            switch result {
            case .failure(let error):
                completion(.failure(.storage(error)))
            case .success:
                log.level = level
                log.warn("log_level_changed", ["from": .string(previous.name), "to": .string(level.name)])
                completion(.success(previous))
            }
        }
    }

    // MARK: Reads

    /// Devices listed by `user`: an identity gains a row per install, so the list is capped.
    public static let userDeviceLimit = 20

    /// What is known about one Whisper ID; nothing → `NOT_FOUND`.
    public func user(_ whisperId: WhisperID, completion: @escaping Completion<AdminUserRecord>) {
        store.user(whisperId, deviceLimit: Self.userDeviceLimit) { result in
            switch result {
            case .failure(let error): completion(.failure(.storage(error)))
            case .success(nil): completion(.failure(.notFound("unknown whisperId")))
            case .success(let record?): completion(.success(record))
            }
        }
    }

    public func counts(completion: @escaping Completion<AdminCounts>) {
        store.counts { completion($0.mapError(ServiceError.storage)) }
    }

    public func reports(status: ReportRecord.Status, after: Int64?, limit: Int, completion: @escaping Completion<AdminPage<ReportRecord>>) {
        store.reports(status: status, after: after, limit: limit) { result in
            completion(result.map { AdminPage(rows: $0, limit: limit) { String($0.id) } }.mapError(ServiceError.storage))
        }
    }

    public func bans(after: WhisperID?, limit: Int, completion: @escaping Completion<AdminPage<BanRecord>>) {
        store.bans(after: after, limit: limit) { result in
            completion(result.map { AdminPage(rows: $0, limit: limit) { $0.whisperId } }.mapError(ServiceError.storage))
        }
    }

    public func auditEvents(before: Int64?, limit: Int, completion: @escaping Completion<AdminPage<AuditRecord>>) {
        store.auditEvents(before: before, limit: limit) { result in
            completion(result.map { AdminPage(rows: $0, limit: limit) { String($0.id) } }.mapError(ServiceError.storage))
        }
    }

    // MARK: Changes

    public func ban(_ ban: AdminBanPayload, clientAddress: String, completion: @escaping Completion<Banned>) {
        if let until = ban.untilMillis, until <= now() {
            return completion(.failure(.invalidPayload(.outOfRange(field: "until"))))
        }
        var details = JSONWriter()
        details.beginObject()
        details.member("reason", ban.reason)
        if let until = ban.untilMillis { details.member("until", until) }
        details.endObject()
        let audit = AuditEntry(action: "ban", target: ban.whisperId.string, clientAddress: clientAddress,
                               detailsJSON: String(decoding: details.bytes, as: UTF8.self))
        store.ban(ban, audit: audit) { [self] result in
            switch result {
            case .failure(let error): completion(.failure(.storage(error)))
            case .success(let record):
                revokeSessions(of: ban.whisperId) { completion($0.map { Banned(ban: record, revokedSessions: $0) }) }
            }
        }
    }

    public func unban(_ whisperId: WhisperID, clientAddress: String, completion: @escaping Completion<BanRecord>) {
        let audit = AuditEntry(action: "unban", target: whisperId.string, clientAddress: clientAddress, detailsJSON: "{}")
        store.unban(whisperId, audit: audit) { [self] result in
            switch result {
            case .failure(let error): completion(.failure(.storage(error)))
            case .success(nil): completion(.failure(.notFound("no ban for this whisperId")))
            case .success(let lifted?):
                log.info("ban_lifted", whisperId: whisperId.string)
                notices.announceLifted(whisperId) { [log] announced in
                    // The row is gone, so logins work; at worst another node refuses sends to
                    // the identity until its cache entry expires (docs/operations.md "Bans").
                    if case .failure(let error) = announced {
                        log.warn("ban_lifted_notice_failed", whisperId: whisperId.string, ["reason": .string(error.description)])
                    }
                    completion(.success(lifted))
                }
            }
        }
    }

    public func review(_ id: Int64, _ review: AdminReviewPayload, clientAddress: String,
                       completion: @escaping Completion<ReviewResult>) {
        var details = JSONWriter()
        details.beginObject()
        details.member("action", review.action.rawValue)
        details.member("note", review.note)
        details.endObject()
        let audit = AuditEntry(action: "review", target: String(id), clientAddress: clientAddress,
                               detailsJSON: String(decoding: details.bytes, as: UTF8.self))
        store.review(id, review, banReason: "report \(id)", audit: audit) { [self] result in
            switch result {
            case .failure(let error): completion(.failure(.storage(error)))
            case .success(nil): completion(.failure(.notFound("unknown report")))
            case .success(let outcome?):
                guard outcome.changed, review.action == .ban, let target = WhisperID.validate(outcome.report.whisperId) else {
                    return completion(.success(outcome))
                }
                revokeSessions(of: target) { completion($0.map { _ in outcome }) }
            }
        }
    }

    /// Logs a registered identity out everywhere without a ban: its audit row first (so it
    /// never happens unaudited), then every session dies on every node as in a ban, with
    /// reason `admin_logout` (close 4001); the identity may log in again at once. A login
    /// racing the call may be refused once with `AUTH_FAILED` (it read the revocation epoch
    /// before). Unknown or deleted id → `NOT_FOUND`. Answers how many sessions died.
    public func revokeSessions(of whisperId: WhisperID, clientAddress: String, completion: @escaping Completion<Int>) {
        let audit = AuditEntry(action: "sessions_revoke", target: whisperId.string, clientAddress: clientAddress, detailsJSON: "{}")
        store.audit(audit, ifRegistered: whisperId) { [auth] result in
            switch result {
            case .failure(let error): completion(.failure(.storage(error)))
            case .success(false): completion(.failure(.notFound("unknown whisperId")))
            case .success(true): auth.revokeAll(of: whisperId, reason: .adminLogout, completion: completion)
            }
        }
    }

    /// Step 3 of a ban: kill the identity's sessions everywhere (docs/protocol.md
    /// "session_revoked"); answers how many there were.
    private func revokeSessions(of whisperId: WhisperID, _ completion: @escaping Completion<Int>) {
        auth.revokeAll(of: whisperId, reason: .banned) { [log] result in
            if case .success(let count) = result {
                log.info("banned", whisperId: whisperId.string, ["revokedSessions": .int(count)])
            }
            completion(result)
        }
    }
}
