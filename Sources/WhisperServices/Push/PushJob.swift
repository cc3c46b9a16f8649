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

/// The senders, shared by every loop: `submit` never blocks (the queue is bounded).
public protocol PushDispatcher: Sendable {
    func submit(_ job: PushJob) -> PushSubmission
}

/// The coalescing window, decided in Redis so that two nodes do not both send.
public protocol WakeUpClaims {
    /// True when this caller took `user`'s window (and should send); false when a wake-up was
    /// already sent within it.
    func claim(_ user: WhisperID, windowMillis: Int64, completion: @escaping StoreCompletion<Bool>)
}

/// Device tokens (PostgreSQL `devices`).
public protocol PushDevices {
    func device(of user: WhisperID, completion: @escaping StoreCompletion<PushDevice?>)
}
