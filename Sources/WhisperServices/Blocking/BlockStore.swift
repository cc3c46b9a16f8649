import WhisperProtocol

/// What recording a block did.
public enum BlockOutcome: Sendable, Equatable {
    /// The pair is recorded now.
    case added
    /// It was recorded before: nothing changed.
    case alreadyBlocked
    /// The blocked id is not a registered identity: nothing recorded.
    case unknownIdentity
    /// The blocker already blocks `max` identities: nothing recorded.
    case full
}

/// The block lists (PostgreSQL `blocks`): the source of truth. Completions run on the caller's loop.
public protocol BlockStore {
    /// Records that `blocker` blocks `blocked`, unless `blocked` is not a registered identity,
    /// the pair is recorded already, or `blocker` already blocks `max` identities. One
    /// blocker's adds are serialised, so concurrent blocks cannot pass `max` together.
    func add(_ blocked: WhisperID, by blocker: WhisperID, max: Int, completion: @escaping StoreCompletion<BlockOutcome>)
    /// Forgets the pair; answers whether it was recorded.
    func remove(_ blocked: WhisperID, by blocker: WhisperID, completion: @escaping StoreCompletion<Bool>)
    /// The identities `blocker` blocks, oldest block first.
    func list(of blocker: WhisperID, completion: @escaping StoreCompletion<[WhisperID]>)
}

/// The copy of one user's block list that the Redis scripts check (`blocked:{whisperId}`):
/// messages, call offers, typing and presence from an identity in it never reach the user.
/// Completions run on the caller's loop.
public protocol BlockMirror {
    func add(_ blocked: WhisperID, by blocker: WhisperID, completion: @escaping StoreCompletion<Void>)
    func remove(_ blocked: WhisperID, by blocker: WhisperID, completion: @escaping StoreCompletion<Void>)
    /// Replaces the whole copy in one atomic step; an empty list leaves no key.
    func replace(_ blocked: [WhisperID], of blocker: WhisperID, completion: @escaping StoreCompletion<Void>)
}
