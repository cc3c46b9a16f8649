import WhisperProtocol

/// One `attachments` row, written at presign.
public struct AttachmentRecord: Sendable, Equatable {
    public let objectKey: String
    public let uploader: WhisperID
    public let contentType: String
    public let sizeBytes: Int64
    /// Presign plus the retention (`attachments.expires_at`). Kept for operators: the GC counts
    /// the retention from the newest message carrying the object (`AttachmentCollector`).
    public let expiresAtMillis: Int64

    public init(objectKey: String, uploader: WhisperID, contentType: String, sizeBytes: Int64, expiresAtMillis: Int64) {
        self.objectKey = objectKey
        self.uploader = uploader
        self.contentType = contentType
        self.sizeBytes = sizeBytes
        self.expiresAtMillis = expiresAtMillis
    }
}

/// Attachment metadata (PostgreSQL `attachments`, `attachment_recipients`). Completions run on
/// the caller's loop.
public protocol AttachmentStore {
    func create(_ record: AttachmentRecord, completion: @escaping StoreCompletion<Void>)
    /// Whether `whisperId` uploaded the live object `objectKey` or received a message carrying
    /// it; for a recipient, also records (once) that it asked — the GC deletes an object when
    /// every recipient has.
    func authorizeDownload(_ objectKey: String, whisperId: WhisperID, completion: @escaping StoreCompletion<Bool>)
    /// Records `recipient` as a reader of `objectKey` through `messageId`, only if `sender`
    /// uploaded it; answers whether a row was written (false: not the uploader's, unknown or a repeat).
    func recordRecipient(objectKey: String, sender: WhisperID, recipient: WhisperID, messageId: String,
                         completion: @escaping StoreCompletion<Bool>)
}
