import WhisperProtocol
import WhisperServices
import WhisperStorage

/// One identity as the admin API shows it (`GET /admin/users/{whisperId}`), and the audit row
/// of an action on a registered identity outside the database (its sessions, in Redis).
extension PostgresAdminStore {
    /// One row per device (most recently active first, at most `$2`), or one row without
    /// device columns; the identity's columns repeat on each. `device_count` is counted before
    /// the limit.
    package static let userSQL = """
        SELECT (extract(epoch FROM u.created_at) * 1000)::bigint AS registered_ms,
               (extract(epoch FROM x.deleted_at) * 1000)::bigint AS deleted_ms,
               b.reason AS ban_reason, (extract(epoch FROM b.created_at) * 1000)::bigint AS ban_created_ms,
               (extract(epoch FROM b.until) * 1000)::bigint AS ban_until_ms,
               d.device_id::text AS device_id, d.platform, d.push_token IS NOT NULL AS has_push,
               d.voip_token IS NOT NULL AS has_voip, (extract(epoch FROM d.created_at) * 1000)::bigint AS device_created_ms,
               (extract(epoch FROM d.last_active_at) * 1000)::bigint AS last_active_ms,
               count(d.device_id) OVER () AS device_count
        FROM (SELECT $1::text AS whisper_id) AS w
        LEFT JOIN users u ON u.whisper_id = w.whisper_id
        LEFT JOIN deleted_identities x ON x.whisper_id = w.whisper_id
        LEFT JOIN bans b ON b.whisper_id = w.whisper_id
        LEFT JOIN devices d ON d.whisper_id = w.whisper_id
        ORDER BY d.last_active_at DESC NULLS LAST, d.device_id
        LIMIT $2::bigint
        """

    /// `auditSQL` guarded by the identity's `users` row ($6): no row, nothing inserted.
    package static let auditIfRegisteredSQL = """
        INSERT INTO audit_events (actor, action, target, details, client_address)
        SELECT $1::text, $2::text, $3::text, $4::jsonb, $5::text
        WHERE EXISTS (SELECT 1 FROM users WHERE whisper_id = $6::text)
        RETURNING id
        """

    package func audit(_ entry: AuditEntry, ifRegistered whisperId: WhisperID, completion: @escaping StoreCompletion<Bool>) {
        pool.query(Self.auditIfRegisteredSQL, Self.parameters(entry) + [.text(whisperId.string)], on: loop, completion) {
            .success(!$0.isEmpty)
        }
    }

    package func user(_ whisperId: WhisperID, deviceLimit: Int, completion: @escaping StoreCompletion<AdminUserRecord?>) {
        pool.query(Self.userSQL, [.text(whisperId.string), .int64(Int64(max(1, deviceLimit)))], on: loop, completion) { rows in
            Self.user(whisperId, rows)
        }
    }

    package static func user(_ whisperId: WhisperID, _ rows: PostgresRows) -> Result<AdminUserRecord?, StoreError> {
        guard let first = rows.first, let deviceCount = first.int64("device_count") else {
            return .failure(.unexpectedReply("admin user row"))
        }
        var devices: [AdminUserRecord.Device] = []
        for row in rows where row.string("device_id") != nil {
            guard let id = row.string("device_id"), let platform = row.string("platform"), let push = row.bool("has_push"),
                  let voip = row.bool("has_voip"), let created = row.int64("device_created_ms"),
                  let lastActive = row.int64("last_active_ms")
            else { return .failure(.unexpectedReply("admin user device row")) }
            devices.append(AdminUserRecord.Device(deviceId: id, platform: platform, hasPushToken: push, hasVoipToken: voip,
                                                  createdAtMillis: created, lastActiveAtMillis: lastActive))
        }
        var ban: BanRecord?
        if let reason = first.string("ban_reason") {
            guard let created = first.int64("ban_created_ms") else { return .failure(.unexpectedReply("admin user ban row")) }
            ban = BanRecord(whisperId: whisperId.string, reason: reason, createdAtMillis: created, untilMillis: first.int64("ban_until_ms"))
        }
        let registered = first.int64("registered_ms"), deleted = first.int64("deleted_ms")
        guard registered != nil || deleted != nil || ban != nil else { return .success(nil) }
        return .success(AdminUserRecord(whisperId: whisperId.string, registeredAtMillis: registered, deletedAtMillis: deleted,
                                        ban: ban, devices: devices, deviceCount: deviceCount))
    }
}
