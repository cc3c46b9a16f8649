import WhisperProtocol

/// Where sessions live (Redis: `session:{hash}` with a TTL, plus the per-identity index
/// `sessions:{whisperId}`). Every mutation that kills sessions also announces it to all
/// nodes (a `RevocationNotice`), atomically with the kill.
public protocol SessionStore {
    /// The identity's revocation epoch: a login reads it before its identity checks, and a
    /// `revokeAll` raises it (per identity, so it is read in the identity's own Redis slot).
    func revocationEpoch(of whisperId: WhisperID, completion: @escaping StoreCompletion<Int64>)

    /// Stores `session` and kills every other session of its identity (single active
    /// device), atomically — unless a `revokeAll` (a ban, a deletion) of the identity came
    /// after `epoch` (the `revocationEpoch(of:)` the login read before its identity
    /// checks): then nothing is stored and the answer is that revocation's reason. This
    /// closes the window where a login checked the ban before it committed and stored its
    /// session after the ban's revocation ran (docs/security.md "Bans and logins").
    func createExclusive(_ session: SessionRecord, ttlSeconds: Int64, unlessRevokedAfter epoch: Int64,
                         origin: ConnectionRef, completion: @escaping StoreCompletion<ExclusiveSession>)

    /// The live session with this hash, or `nil`.
    func find(_ hash: SessionHash, completion: @escaping StoreCompletion<SessionRecord?>)

    /// Atomically replaces `old` by `new` (same identity). `false` when `old` was already gone.
    func replace(_ old: SessionRecord, with new: SessionRecord, ttlSeconds: Int64, origin: ConnectionRef,
                 completion: @escaping StoreCompletion<Bool>)

    /// Kills `session`. `false` when it was already gone.
    func delete(_ session: SessionRecord, origin: ConnectionRef, completion: @escaping StoreCompletion<Bool>)

    /// Kills every session of `whisperId` (a ban, an account deletion), and in the same step
    /// raises its revocation epoch and marks the identity revoked at it, so a login that read
    /// an older epoch is refused (`createExclusive`). Answers the hashes it killed. The notice spares the socket `origin` (the one that deleted its account,
    /// which is answered and closed by its own handler); `nil` spares none.
    func revokeAll(of whisperId: WhisperID, reason: RevocationReason, origin: ConnectionRef?,
                   completion: @escaping StoreCompletion<[SessionHash]>)
}

/// What `SessionStore.createExclusive` did.
public enum ExclusiveSession: Sendable, Equatable {
    /// Stored; the identity's other sessions (these hashes) are dead.
    case created(revoked: [SessionHash])
    /// Not stored: the identity was revoked (banned, deleted) after the login's epoch.
    case refused(RevocationReason)
}
