import WhisperProtocol

/// One push to one device token, handed from a loop's `PushService` to a provider's sender.
/// It names the user only so that a dead token can be removed from the right device row;
/// nothing of it but the token (and a call's id) reaches the provider.
public struct PushJob: Sendable, Equatable {
    public enum Provider: String, Sendable, CaseIterable {
        case apns
        case fcm
    }

    public enum Kind: Sendable, Equatable {
        /// Content-free: "something waits, connect and fetch".
        case wake
        /// An incoming call: the app shows the ringing screen and logs in for the held offer.
        /// The `callId` exactly as the caller spelt it (a UUID in any case: hex digits and
        /// dashes, nothing to escape), so it matches the offer the callee then receives.
        case call(callIdText: String)
    }

    public let user: WhisperID
    public let provider: Provider
    public let token: String
    /// The APNs VoIP token (`devices.voip_token`) rather than the regular one.
    public let isVoIPToken: Bool
    public let kind: Kind

    public init(user: WhisperID, provider: Provider, token: String, isVoIPToken: Bool, kind: Kind) {
        self.user = user
        self.provider = provider
        self.token = token
        self.isVoIPToken = isVoIPToken
        self.kind = kind
    }
}

/// The device a push goes to: the user's most recently active device with a token (a login
/// clears the tokens of the identity's other devices, docs/protocol.md "update_tokens").
public struct PushDevice: Sendable, Equatable {
    public let platform: Platform
    public let pushToken: String?
    public let voipToken: String?

    public init(platform: Platform, pushToken: String?, voipToken: String?) {
        self.platform = platform
        self.pushToken = pushToken
        self.voipToken = voipToken
    }
}

/// What a provider's sender made of a submitted job.
public enum PushSubmission: Sendable, Equatable {
    case queued
    /// The sender's queue is full: the job is dropped (and counted).
    case dropped
    /// That provider is not configured.
    case disabled
}

/// A loop's way to the providers' senders (shared by every loop): `submit` never blocks (the
/// queue is bounded).
public protocol PushDispatcher {
    /// Queues `job`. `finished` runs on the submitting loop once the job is over: true when
    /// the provider took the push or its token was dead (nothing is left to send), false when
    /// it was given up. It never runs for a job that was not queued, or that was lost with the
    /// process (a crash, a drain's deadline).
    func submit(_ job: PushJob, finished: @escaping (Bool) -> Void) -> PushSubmission
}

/// Which entry of the owed wake-ups a caller holds (`WakeUpClaims`): the score it wrote.
/// Settling with a ticket changes nothing once the entry was written anew.
public struct WakeTicket: Sendable, Equatable, CustomStringConvertible {
    public let score: Int64
    public init(_ score: Int64) { self.score = score }
    public var description: String { String(score) }
}

/// What a due owed wake-up still is (`WakeUpClaims.recheck`).
public enum OwedWakeUp: Sendable, Equatable {
    /// The user has a live socket: nothing to wake.
    case online
    /// Neither a message nor an event waits for the user any more.
    case nothingWaits
    /// A wake-up was sent within the coalescing window meanwhile (by whoever claimed it).
    case coalesced
    /// Still owed: this caller claimed the window and sends it.
    case owed
}

/// The coalescing window and the owed wake-ups, decided in Redis so that two nodes do not
/// both send, and so that a wake-up lost with its node or given up by its provider is sent
/// again (docs/operations.md "Push").
public protocol WakeUpClaims {
    /// True when this caller took `user`'s window (and should send); false when a wake-up was
    /// already sent within it.
    func claim(_ user: WhisperID, windowMillis: Int64, completion: @escaping StoreCompletion<Bool>)
    /// Records a wake-up owed to `user`, due again `delayMillis` from now unless settled.
    func owe(_ user: WhisperID, delayMillis: Int64, completion: @escaping StoreCompletion<WakeTicket>)
    /// After a send: the entry goes (`retryAfterFailure` false), or — given up — it is due
    /// again after a backoff that doubles with each failure in a row: `windowMillis` ×
    /// 2^(failures − 1), at most `maxDelayMillis`. Nothing changes when the entry no longer
    /// holds `ticket`.
    func settle(_ user: WhisperID, ticket: WakeTicket, retryAfterFailure: Bool, windowMillis: Int64, maxDelayMillis: Int64)
    /// Claims up to `batch` owed wake-ups that are due, each for `leaseMillis` (another node
    /// takes it only after that).
    func takeDue(batch: Int, leaseMillis: Int64, completion: @escaping StoreCompletion<[(user: WhisperID, ticket: WakeTicket)]>)
    /// Whether a due wake-up is still owed; `.owed` claims `user`'s window as `claim` does.
    func recheck(_ user: WhisperID, windowMillis: Int64, completion: @escaping StoreCompletion<OwedWakeUp>)
}

/// Device tokens (PostgreSQL `devices`).
public protocol PushDevices {
    func device(of user: WhisperID, completion: @escaping StoreCompletion<PushDevice?>)
}
