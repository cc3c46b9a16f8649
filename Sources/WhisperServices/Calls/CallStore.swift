import WhisperProtocol

/// How a call setup ended, for `whisper_call_setup_total{result}` (docs/operations.md
/// "Health, readiness, metrics"). Each call counts once, on the transition out of ringing.
public enum CallSetupResult: String, Sendable, CaseIterable {
    /// The callee answered while it rang.
    case answered
    /// Nobody answered within the ring timeout.
    case timeout
    /// The callee sent `call_end` while it rang.
    case rejected
    /// The caller sent `call_end` while it rang (cancelled, or gave up after an error).
    case failed
}

/// A validated `call_initiate` to store and route.
public struct CallOffer: Sendable {
    public let caller: WhisperID
    public let callee: WhisperID
    public let callId: CanonicalUUID
    /// As the caller spelt it, for the server's own frames about the call.
    public let callIdText: String
    /// The `call_initiate` frame for the callee, held while the call rings.
    public let frame: [UInt8]
    /// The CALL rate limit, checked and charged first, in the same atomic step.
    public let rateLimit: RateLimitCharge

    public init(caller: WhisperID, callee: WhisperID, callId: CanonicalUUID, callIdText: String, frame: [UInt8],
                rateLimit: RateLimitCharge) {
        self.caller = caller
        self.callee = callee
        self.callId = callId
        self.callIdText = callIdText
        self.frame = frame
        self.rateLimit = rateLimit
    }
}

/// A validated `call_answer`, `call_ice_candidate` or `call_end`.
public struct CallSignal: Sendable {
    public let kind: CallSignalKind
    public let from: WhisperID
    public let to: WhisperID
    public let callId: CanonicalUUID
    /// The frame for `to`.
    public let frame: [UInt8]
    public let rateLimit: RateLimitCharge

    public init(kind: CallSignalKind, from: WhisperID, to: WhisperID, callId: CanonicalUUID, frame: [UInt8],
                rateLimit: RateLimitCharge) {
        self.kind = kind
        self.from = from
        self.to = to
        self.callId = callId
        self.frame = frame
        self.rateLimit = rateLimit
    }
}

public enum CallStoreOutcome: Sendable, Equatable {
    /// Stored and routed to the other party (`.offline`: an offer is held, a `call_end` kept,
    /// anything else dropped). `setup` when this signal ended the ringing phase.
    case routed(Routing, setup: CallSetupResult?)
    /// No such call, or it has ended.
    case unknownCall
    /// The sender is not a party of the call, `to` is not the other party, the caller
    /// answered its own call, or an offer reused a `callId`.
    case notAParty
    /// The CALL rate limit is exhausted: nothing was charged, stored or routed.
    case rateLimited(retryAfterMs: Int64)
    /// The callee blocked the caller (docs/protocol.md "Blocking"): routed nowhere and nobody
    /// to wake. An offer rings for the caller alone until the ring timeout; `setup` when this
    /// signal (the caller's `call_end`) ended its ringing.
    case dropped(setup: CallSetupResult?)
}

/// What a callee's `call_received` did.
public enum CallConfirmation: Sendable, Equatable {
    /// The first confirmation of a ringing call: `call_ringing` (`frame`) went to the caller
    /// (`.local`: the caller writes it on this node).
    case confirmed(caller: WhisperID, routing: Routing, frame: [UInt8])
    /// Confirmed before, or already answered: nothing happened.
    case repeated
    /// No such call, it has ended, or the callee blocked its caller (the callee does not know it).
    case unknownCall
    /// The sender is not the callee of the call.
    case notTheCallee
}

/// An offer no device confirmed in time: its callee is to be pushed as if offline (the offer
/// stays held for the next login). The sweep claims it for a lease, not for good: the claiming
/// node settles it (`CallStore.settle`) once the push is handed to its sender, and a node that
/// dies before that leaves it to a sweep after the lease — a push sent twice, never not at all.
public struct UnconfirmedOffer: Sendable, Equatable {
    public let callee: WhisperID
    /// The `callId` as the caller spelt it.
    public let callIdText: String
    public let callId: CanonicalUUID
    /// The claim's score: settling drops the offer's entry only while it still holds it.
    public let claim: String

    public init(callee: WhisperID, callIdText: String, callId: CanonicalUUID, claim: String) {
        self.callee = callee
        self.callIdText = callIdText
        self.callId = callId
        self.claim = claim
    }
}

/// What one sweep found: calls it ended, and offers no device confirmed in time.
public struct CallSweep: Sendable {
    public let ended: [RangOutCall]
    /// Callees to push as if offline, each claimed for a lease.
    public let unconfirmed: [UnconfirmedOffer]
    /// Answers and hangups a node stored but died before delivering (Redis Cluster, where
    /// they are steps): the sweep delivered them. Not counted as setups.
    public let finished: [RangOutCall]

    public init(ended: [RangOutCall], unconfirmed: [UnconfirmedOffer], finished: [RangOutCall] = []) {
        self.ended = ended
        self.unconfirmed = unconfirmed
        self.finished = finished
    }
}

/// A call the sweep ended because nobody answered; its `call_end` went to both parties. (Or,
/// in `CallSweep.finished`, an answer or hangup the sweep delivered for a node that died.)
public struct RangOutCall: Sendable {
    public let frame: [UInt8]
    /// Parties whose socket is on this node: the caller writes the frame there.
    public let local: [(user: WhisperID, route: LiveRoute)]
    /// `.signal` for an answer; the rest are events (kept for an offline party).
    public let kind: DeliveryKind

    public init(frame: [UInt8], local: [(user: WhisperID, route: LiveRoute)], kind: DeliveryKind = .event) {
        self.frame = frame
        self.local = local
        self.kind = kind
    }
}

/// Call state in Redis (`call:{callId}`, ring and confirmation deadlines, held offers), every
/// transition one atomic step. Completions run on the caller's loop.
public protocol CallStore {
    /// Atomically: charge the rate limit; refuse a `callId` in use (or recently ended); store
    /// the call as ringing with its deadline, hold the offer for the callee, and route it
    /// to the callee's live-looking socket with a confirmation deadline — unless the callee
    /// blocked the caller: then the call rings for the caller alone, nothing is held or
    /// routed (`dropped`).
    func initiate(_ offer: CallOffer, completion: @escaping StoreCompletion<CallStoreOutcome>)

    /// Atomically: charge the rate limit; check the call rings or is answered and that
    /// `from` → `to` goes between its parties; apply the transition (answer, end); route
    /// the frame (a `call_end` is kept for an offline party).
    func signal(_ signal: CallSignal, completion: @escaping StoreCompletion<CallStoreOutcome>)

    /// Atomically: `callee` confirms the offer of `callId` reached it; the first confirmation
    /// of a ringing call routes `call_ringing` to the caller.
    func confirm(_ callId: CanonicalUUID, callee: WhisperID, completion: @escaping StoreCompletion<CallConfirmation>)

    /// `user` has just come online: the offers (and caller candidates) of calls still ringing
    /// for it, oldest call first; unconfirmed ones get a new confirmation deadline.
    func heldCalls(for user: WhisperID, completion: @escaping StoreCompletion<[[UInt8]]>)

    /// Ends calls past their ring deadline and claims offers past their confirmation deadline
    /// (for a lease), each by exactly one node; routes `call_end {reason:"timeout"}` to both
    /// parties of an ended call (kept for an offline one).
    func sweep(completion: @escaping StoreCompletion<CallSweep>)

    /// The callee of a claimed offer was pushed: its confirmation deadline is dropped, unless
    /// it changed since the claim (a login gave the offer a new one).
    func settle(_ offer: UnconfirmedOffer, completion: @escaping StoreCompletion<Void>)
}
