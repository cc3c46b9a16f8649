import WhisperProtocol

/// Wakes a user's phone when something waits for it and it has no live socket (docs/protocol.md
/// "Push"). The services call it after a store step answered `offline`; `PushService` is the
/// implementation, and a server without push providers has none (the services hold `nil`).
public protocol WakeUps: AnyObject {
    /// A message or a kept event was queued for `user`: a content-free wake-up, at most one
    /// per user per coalescing window.
    func wake(_ user: WhisperID)
    /// The coalescing window (ms) a store may claim itself, in the same atomic step that found
    /// the user offline (the message accept script does), saving the claim's round trip.
    var claimWindowMillis: Int64 { get }
    /// A wake-up whose window the caller already claimed: sent without claiming again.
    func wakeClaimed(_ user: WhisperID)
    /// `call_initiate` found the callee without a live socket: a VoIP push on iOS (CallKit
    /// rings), a high-priority data message on Android; never coalesced away. The held offer
    /// is delivered when the woken app logs in. `callIdText` is the caller's spelling.
    /// `handed(true)` once nothing is left to do here (the job is with its provider's sender,
    /// or the callee has no token or provider); `false` when it could not be handed (the
    /// device lookup failed, the sender's queue was full): a retry may send it.
    func ring(_ callee: WhisperID, callIdText: String, handed: @escaping (Bool) -> Void)
}

extension WakeUps {
    public func ring(_ callee: WhisperID, callIdText: String) { ring(callee, callIdText: callIdText) { _ in } }
}
