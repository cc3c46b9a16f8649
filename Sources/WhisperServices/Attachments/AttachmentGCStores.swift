import WhisperProtocol

/// The GC's view of `attachments` / `attachment_recipients` (PostgreSQL).
public protocol AttachmentGCStore {
    /// At most `limit` keys that may go now: referenced by a message and either asked for
    /// (`GET …/download`) by every recipient or with its newest message over `retentionSeconds`
    /// old; or referenced by no message and presigned over `graceSeconds` ago.
    func collectable(graceSeconds: Int64, retentionSeconds: Int64, limit: Int, completion: @escaping StoreCompletion<[String]>)
    /// Deletes the object's rows (recipients cascade); answers whether a row was deleted.
    func forget(_ objectKey: String, completion: @escaping StoreCompletion<Bool>)
    /// Writes an `audit_events` row (an admin-triggered run).
    func audit(_ entry: AuditEntry, completion: @escaping StoreCompletion<Void>)
}

/// Deletes objects from the S3 store. `completion(true)` when the object is gone (deleted now
/// or already absent); false on any failure (the GC retries next run). Runs on the caller's loop.
public protocol ObjectDeleter {
    func delete(objectKey: String, completion: @escaping (Bool) -> Void)
}
