import WhisperProtocol

/// A recipient row whose `delivered` receipt has not been seen yet.
public struct UndeliveredRecipient: Sendable, Equatable {
    public let objectKey: String
    /// The sender of the message, which is always the object's uploader.
    public let uploader: WhisperID
    public let recipient: WhisperID
    public let messageId: CanonicalUUID

    public init(objectKey: String, uploader: WhisperID, recipient: WhisperID, messageId: CanonicalUUID) {
        self.objectKey = objectKey
        self.uploader = uploader
        self.recipient = recipient
        self.messageId = messageId
    }
}

/// The GC's view of `attachments` / `attachment_recipients` (PostgreSQL).
public protocol AttachmentGCStore {
    /// At most `limit` recipient rows of live objects without `delivered_at`.
    func undeliveredRecipients(limit: Int, completion: @escaping StoreCompletion<[UndeliveredRecipient]>)
    func markDelivered(_ rows: [UndeliveredRecipient], completion: @escaping StoreCompletion<Void>)
    /// At most `limit` keys that may go now: past `expires_at`; or referenced and every
    /// recipient delivered; or referenced by no message and presigned over `graceSeconds` ago.
    func collectable(graceSeconds: Int64, limit: Int, completion: @escaping StoreCompletion<[String]>)
    /// Deletes the object's rows (recipients cascade); answers whether a row was deleted.
    func forget(_ objectKey: String, completion: @escaping StoreCompletion<Bool>)
    /// Writes an `audit_events` row (an admin-triggered run).
    func audit(_ entry: AuditEntry, completion: @escaping StoreCompletion<Void>)
}

/// Whether messages left the recipient's pending queue for good (Redis `msg:{from}:{id}`).
public protocol DeliveryLedger {
    /// For each row, in order: true when its message was receipted `delivered`, or is no longer
    /// known (past the pending TTL: it can never be delivered any more).
    func settled(_ rows: [UndeliveredRecipient], completion: @escaping StoreCompletion<[Bool]>)
}

/// Deletes objects from the S3 store. `completion(true)` when the object is gone (deleted now
/// or already absent); false on any failure (the GC retries next run). Runs on the caller's loop.
public protocol ObjectDeleter {
    func delete(objectKey: String, completion: @escaping (Bool) -> Void)
}
