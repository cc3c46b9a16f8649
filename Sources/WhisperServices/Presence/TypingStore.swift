import WhisperProtocol

/// One `typing` signal to relay.
public struct TypingSignal: Sendable {
    public let from: WhisperID
    public let to: WhisperID
    /// The complete `typing` frame for `to`.
    public let frame: [UInt8]
    /// The TYPING rate limit, checked and charged first, in the same atomic step.
    public let rateLimit: RateLimitCharge

    public init(from: WhisperID, to: WhisperID, frame: [UInt8], rateLimit: RateLimitCharge) {
        self.from = from
        self.to = to
        self.frame = frame
        self.rateLimit = rateLimit
    }
}

public enum TypingOutcome: Sendable, Equatable {
    /// Routed to the recipient's socket (or published to its node); `.offline`: nobody to tell.
    case relayed(Routing)
    /// Not a direct peer of the sender: dropped without a word.
    case notPeer
    /// Another signal for the same (from, to) within `Limits.typingMinIntervalMillis`: dropped.
    case throttled
    /// The recipient blocked the sender (docs/protocol.md "Blocking"): dropped without a word.
    case blocked
    /// The TYPING rate limit is exhausted: nothing was relayed.
    case rateLimited(retryAfterMs: Int64)
}

/// Ephemeral signals between direct peers (Redis): one atomic step per signal. Completions
/// run on the caller's loop.
public protocol TypingStore {
    /// Atomically: charge the rate limit (refuse if exhausted); unless `to` is a direct peer of
    /// `from` (a message within `Limits.directPeerWindowSeconds`), drop; if `to` blocked `from`,
    /// drop; unless no signal for (from, to) passed in the last `minIntervalMillis`, drop; route
    /// the frame to `to`'s socket — never keep it for later.
    func relay(_ signal: TypingSignal, minIntervalMillis: Int64, completion: @escaping StoreCompletion<TypingOutcome>)
}
