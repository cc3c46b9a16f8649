import WhisperProtocol

/// A stored contacts backup, as `GET /backup/contacts` answers it.
public struct StoredContactsBackup: Sendable, Equatable {
    /// Epoch milliseconds of the last upload.
    public let updatedAtMillis: Int64
    /// The response body, `{nonce, ciphertext, updatedAt}`, rendered where the value is made.
    /// The PostgreSQL store makes it on a worker thread, so reading, escaping and copying up to
    /// 6.7 MB of base64 never holds an event loop; and only this buffer is kept (the texts are
    /// freed where they were read), so the loop frees one buffer, not three
    /// (docs/architecture.md "Large results").
    public let json: [UInt8]

    public init(nonceText: String, ciphertextText: String, updatedAtMillis: Int64) {
        self.updatedAtMillis = updatedAtMillis
        var writer = JSONWriter(capacity: 64 + nonceText.utf8.count + ciphertextText.utf8.count)
        writer.beginObject()
        writer.member("nonce", nonceText)
        writer.member("ciphertext", ciphertextText)
        writer.member("updatedAt", updatedAtMillis)
        writer.endObject()
        json = writer.bytes
    }
}

/// One encrypted contacts blob per identity (PostgreSQL `contact_backups`). Completions run on
/// the caller's loop.
public protocol ContactsBackupStore {
    /// Replaces the identity's blob; answers the new `updatedAt` (epoch milliseconds).
    func put(_ backup: ContactsBackupPayload, for whisperId: WhisperID, completion: @escaping StoreCompletion<Int64>)
    func get(_ whisperId: WhisperID, completion: @escaping StoreCompletion<StoredContactsBackup?>)
    /// Answers whether there was a blob to delete.
    func delete(_ whisperId: WhisperID, completion: @escaping StoreCompletion<Bool>)
}
