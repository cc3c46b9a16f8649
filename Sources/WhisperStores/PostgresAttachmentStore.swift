import WhisperProtocol
import WhisperRuntime
import WhisperServices
import WhisperStorage

/// `attachments` and `attachment_recipients` through the PostgreSQL worker pool; completions
/// come back on `loop`.
package final class PostgresAttachmentStore: AttachmentStore {
    package let pool: PostgresPool?
    package let loop: EventLoop

    package init(pool: PostgresPool?, loop: EventLoop) {
        self.pool = pool
        self.loop = loop
    }

    package static let createSQL = """
        INSERT INTO attachments (object_key, uploader_id, content_type, size_bytes, expires_at)
        VALUES ($1, $2, $3, $4, to_timestamp($5::bigint / 1000.0))
        """

    /// The uploader, or a recipient recorded for a message the uploader sent; a deleted object
    /// is nobody's. In the same statement a recipient's first request is recorded on each of
    /// its rows (`downloaded_at`, what the GC waits for); a data-modifying CTE runs whether or
    /// not the outer query reads it, and a later request leaves the first time in place.
    package static let authorizeDownloadSQL = """
        WITH live AS (SELECT uploader_id FROM attachments WHERE object_key = $1 AND deleted_at IS NULL),
             asked AS (UPDATE attachment_recipients SET downloaded_at = now()
                       WHERE object_key = $1 AND recipient_id = $2 AND downloaded_at IS NULL
                         AND EXISTS (SELECT 1 FROM live))
        SELECT 1 FROM live
        WHERE live.uploader_id = $2
           OR EXISTS (SELECT 1 FROM attachment_recipients r WHERE r.object_key = $1 AND r.recipient_id = $2)
        """

    /// One statement checks the uploader and writes the row: a key that is unknown, deleted or
    /// someone else's inserts nothing; a repeated message id is a no-op.
    package static let recordRecipientSQL = """
        INSERT INTO attachment_recipients (object_key, recipient_id, message_id)
        SELECT object_key, $3, $4 FROM attachments WHERE object_key = $1 AND uploader_id = $2 AND deleted_at IS NULL
        ON CONFLICT DO NOTHING
        """

    package func create(_ record: AttachmentRecord, completion: @escaping StoreCompletion<Void>) {
        let parameters: [PostgresValue?] = [.text(record.objectKey), .text(record.uploader.string), .text(record.contentType),
                                            .text(String(record.sizeBytes)), .text(String(record.expiresAtMillis))]
        pool.query(Self.createSQL, parameters, on: loop, completion) { _ in .success(()) }
    }

    package func authorizeDownload(_ objectKey: String, whisperId: WhisperID, completion: @escaping StoreCompletion<Bool>) {
        pool.query(Self.authorizeDownloadSQL, [.text(objectKey), .text(whisperId.string)], on: loop, completion) {
            .success(!$0.isEmpty)
        }
    }

    package func recordRecipient(objectKey: String, sender: WhisperID, recipient: WhisperID, messageId: String,
                                 completion: @escaping StoreCompletion<Bool>) {
        let parameters: [PostgresValue?] = [.text(objectKey), .text(sender.string), .text(recipient.string), .text(messageId)]
        pool.query(Self.recordRecipientSQL, parameters, on: loop, completion) { .success($0.affectedRows > 0) }
    }
}
