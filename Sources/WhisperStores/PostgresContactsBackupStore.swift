import WhisperProtocol
import WhisperRuntime
import WhisperServices
import WhisperStorage

/// `contact_backups` through the PostgreSQL pool (`get` always on a worker thread);
/// completions come back on `loop`.
package final class PostgresContactsBackupStore: ContactsBackupStore {
    private let pool: PostgresPool?
    private let loop: EventLoop

    package init(pool: PostgresPool?, loop: EventLoop) {
        self.pool = pool
        self.loop = loop
    }

    /// One statement: insert or replace, answering the stored time in epoch milliseconds.
    package static let putSQL = """
        INSERT INTO contact_backups (whisper_id, nonce_b64, ciphertext_b64, size_bytes, updated_at)
        VALUES ($1, $2, $3, $4, now())
        ON CONFLICT (whisper_id) DO UPDATE SET nonce_b64 = EXCLUDED.nonce_b64, ciphertext_b64 = EXCLUDED.ciphertext_b64,
            size_bytes = EXCLUDED.size_bytes, updated_at = EXCLUDED.updated_at
        RETURNING (extract(epoch FROM updated_at) * 1000)::bigint AS updated_at_ms
        """

    package static let getSQL = """
        SELECT nonce_b64, ciphertext_b64, (extract(epoch FROM updated_at) * 1000)::bigint AS updated_at_ms
        FROM contact_backups WHERE whisper_id = $1
        """

    package static let deleteSQL = "DELETE FROM contact_backups WHERE whisper_id = $1"

    package func put(_ backup: ContactsBackupPayload, for whisperId: WhisperID, completion: @escaping StoreCompletion<Int64>) {
        let parameters: [PostgresValue?] = [.text(whisperId.string), .text(backup.nonceText), .text(backup.ciphertextText),
                                            .text(String(backup.sizeBytes))]
        pool.query(Self.putSQL, parameters, on: loop, completion) { rows in
            guard let millis = rows.first?.int64("updated_at_ms") else { return .failure(.unexpectedReply("no updated_at")) }
            return .success(millis)
        }
    }

    /// On a worker, not the loop's pipeline: the row (up to 6.7 MB of base64) is read, turned
    /// into text and rendered as the response body there; the loop gets the finished value.
    package func get(_ whisperId: WhisperID, completion: @escaping StoreCompletion<StoredContactsBackup?>) {
        pool.queryOnWorker(Self.getSQL, [.text(whisperId.string)], on: loop, completion) { rows in
            guard let row = rows.first else { return .success(nil) }
            guard let nonce = row.string("nonce_b64"), let ciphertext = row.string("ciphertext_b64"),
                  let millis = row.int64("updated_at_ms")
            else { return .failure(.unexpectedReply("contact_backups row for \(whisperId) is malformed")) }
            return .success(StoredContactsBackup(nonceText: nonce, ciphertextText: ciphertext, updatedAtMillis: millis))
        }
    }

    package func delete(_ whisperId: WhisperID, completion: @escaping StoreCompletion<Bool>) {
        pool.query(Self.deleteSQL, [.text(whisperId.string)], on: loop, completion) { .success($0.affectedRows > 0) }
    }

}
