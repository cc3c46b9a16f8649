import WhisperProtocol

/// Where sessions live (Redis: `session:{hash}` with a TTL, plus the per-identity index
/// `sessions:{whisperId}`). Every mutation that kills sessions also announces it to all
/// nodes (a `RevocationNotice`), atomically with the kill.
public protocol SessionStore {
    /// Stores `session` and kills every other session of its identity (single active
    /// device), atomically. Answers the hashes it killed.
    func createExclusive(_ session: SessionRecord, ttlSeconds: Int64, origin: ConnectionRef,
                         completion: @escaping StoreCompletion<[SessionHash]>)

    /// The live session with this hash, or `nil`.
    func find(_ hash: SessionHash, completion: @escaping StoreCompletion<SessionRecord?>)

    /// Atomically replaces `old` by `new` (same identity). `false` when `old` was already gone.
    func replace(_ old: SessionRecord, with new: SessionRecord, ttlSeconds: Int64, origin: ConnectionRef,
                 completion: @escaping StoreCompletion<Bool>)

    /// Kills `session`. `false` when it was already gone.
    func delete(_ session: SessionRecord, origin: ConnectionRef, completion: @escaping StoreCompletion<Bool>)

    /// Kills every session of `whisperId` (a ban, an account deletion). Answers the hashes
    /// it killed. The notice spares the socket `origin` (the one that deleted its account,
    /// which is answered and closed by its own handler); `nil` spares none.
    func revokeAll(of whisperId: WhisperID, reason: RevocationReason, origin: ConnectionRef?,
                   completion: @escaping StoreCompletion<[SessionHash]>)
}
