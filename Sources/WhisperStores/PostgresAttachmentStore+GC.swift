import WhisperProtocol
import WhisperServices
import WhisperStorage

/// The attachment GC's queries (`AttachmentCollector`).
extension PostgresAttachmentStore: AttachmentGCStore {
    /// Per live object, its recipient rows summed up: none → the unreferenced grace from its
    /// presign; else gone once every row was asked for, or once the newest row (message) is
    /// past the retention.
    package static let collectableSQL = """
        SELECT a.object_key FROM attachments a
        CROSS JOIN LATERAL (
            SELECT count(*) AS messages, bool_and(r.downloaded_at IS NOT NULL) AS downloaded,
                   max(r.created_at) AS last_message
            FROM attachment_recipients r WHERE r.object_key = a.object_key) r
        WHERE a.deleted_at IS NULL AND CASE
            WHEN r.messages = 0 THEN a.created_at <= now() - $1::bigint * interval '1 second'
            ELSE r.downloaded OR r.last_message <= now() - $2::bigint * interval '1 second' END
        ORDER BY a.created_at LIMIT $3::bigint
        """

    package static let forgetSQL = "DELETE FROM attachments WHERE object_key = $1"

    package func collectable(graceSeconds: Int64, retentionSeconds: Int64, limit: Int, completion: @escaping StoreCompletion<[String]>) {
        let parameters: [PostgresValue?] = [.int64(graceSeconds), .int64(retentionSeconds), .int64(Int64(limit))]
        pool.query(Self.collectableSQL, parameters, on: loop, completion) { rows in
            .success(rows.compactMap { $0.string("object_key") })
        }
    }

    package func forget(_ objectKey: String, completion: @escaping StoreCompletion<Bool>) {
        pool.query(Self.forgetSQL, [.text(objectKey)], on: loop, completion) { .success($0.affectedRows > 0) }
    }

    package func audit(_ entry: AuditEntry, completion: @escaping StoreCompletion<Void>) {
        pool.query(PostgresAdminStore.auditSQL, PostgresAdminStore.parameters(entry), on: loop, completion) { _ in .success(()) }
    }
}
