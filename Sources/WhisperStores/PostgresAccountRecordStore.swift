import WhisperProtocol
import WhisperRuntime
import WhisperServices
import WhisperStorage

/// The PostgreSQL side of an account deletion (`AccountDeletionService` step 3), one
/// transaction on the worker pool; the completion comes back on `loop`.
///
/// What goes: the `users` row — the public keys — and with it, by the foreign keys' cascades,
/// `devices` (push and VoIP tokens) and `contact_backups`. `group_members` would cascade too,
/// but the transaction refuses while any is left (the identity must leave its groups first,
/// so the other members hear of it). What changes: the identity's uploads expire now (the
/// next GC run deletes them), and its own download rights (`attachment_recipients`) go, so
/// they hold no object back. What stays: the id in `deleted_identities` (never minted nor
/// logged into again), one `audit_events` row, and the rows that name the id without a
/// foreign key — `bans`, `reports` (docs/security.md "Account deletion").
package final class PostgresAccountRecordStore: AccountRecordStore {
    private let pool: PostgresPool?
    private let loop: EventLoop

    package init(pool: PostgresPool?, loop: EventLoop) {
        self.pool = pool
        self.loop = loop
    }

    /// Held until the end of the transaction: a concurrent `group_create`/`group_update`
    /// adding the identity (its foreign key check takes `FOR KEY SHARE` on this row) waits,
    /// and then fails on the deleted row, so no membership can slip in after the check below.
    package static let lockSQL = "SELECT 1 FROM users WHERE whisper_id = $1 FOR UPDATE"

    package static let membershipsSQL = "SELECT group_id FROM group_members WHERE whisper_id = $1 ORDER BY joined_at, group_id"

    /// The id is retired before the row goes, in the same transaction: there is no moment
    /// at which it could be minted again.
    package static let retireSQL = "INSERT INTO deleted_identities (whisper_id) VALUES ($1) ON CONFLICT (whisper_id) DO NOTHING"

    /// Answers the number of devices the cascade removed (for the audit row).
    package static let deleteSQL = """
        DELETE FROM users WHERE whisper_id = $1
        RETURNING (SELECT count(*) FROM devices WHERE whisper_id = $1) AS devices
        """

    package static let expireUploadsSQL = """
        UPDATE attachments SET expires_at = now() WHERE uploader_id = $1 AND deleted_at IS NULL AND expires_at > now()
        """

    package static let dropDownloadRightsSQL = "DELETE FROM attachment_recipients WHERE recipient_id = $1"

    /// Actor and target are the identity itself; no address, key or token is recorded.
    package static let auditSQL = """
        INSERT INTO audit_events (actor, action, target, details)
        VALUES ($1, 'account_deleted', $1, jsonb_build_object('devices', $2::bigint, 'attachmentsExpired', $3::bigint))
        """

    package func remove(_ whisperId: WhisperID, completion: @escaping StoreCompletion<AccountRemoval>) {
        let id: [PostgresValue?] = [.text(whisperId.string)]
        pool.transaction(on: loop, completion, { connection throws(PostgresError) -> Result<AccountRemoval, StoreError> in
            _ = try connection.query(Self.lockSQL, id)
            let memberships = try connection.query(Self.membershipsSQL, id)
            if !memberships.isEmpty {
                let groups = memberships.compactMap { $0.string("group_id").flatMap(GroupID.init) }
                guard groups.count == memberships.count else { return .failure(.unexpectedReply("group_members row is malformed")) }
                return .success(.memberOf(groups))
            }
            _ = try connection.query(Self.retireSQL, id)
            // The identity's `blocks` rows, both directions, go with its `users` row (ON DELETE
            // CASCADE, migrations/0006_blocks.sql); its Redis copy goes in the queue purge.
            let deleted = try connection.query(Self.deleteSQL, id)
            let expired = try connection.query(Self.expireUploadsSQL, id)
            _ = try connection.query(Self.dropDownloadRightsSQL, id)
            guard let row = deleted.first else { return .success(.removed(firstTime: false)) }
            let devices = row.int64("devices") ?? 0
            _ = try connection.query(Self.auditSQL, id + [.int64(devices), .int64(Int64(expired.affectedRows))])
            return .success(.removed(firstTime: true))
        }, { $0 })
    }
}
