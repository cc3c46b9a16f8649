import WhisperProtocol

/// A stored contacts backup, as uploaded.
public struct StoredContactsBackup: Sendable, Equatable {
    public let nonceText: String
    public let ciphertextText: String
    /// Epoch milliseconds of the last upload.
    public let updatedAtMillis: Int64

    public init(nonceText: String, ciphertextText: String, updatedAtMillis: Int64) {
        self.nonceText = nonceText
        self.ciphertextText = ciphertextText
        self.updatedAtMillis = updatedAtMillis
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
