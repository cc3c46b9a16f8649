import WhisperProtocol

/// Wakes a callee's device for an incoming call (docs/protocol.md "Calls"): on iOS a VoIP push
/// that CallKit turns into the ringing screen, on Android a high-priority data message. Asked
/// for when a `call_initiate` finds the callee without a live socket; the held offer is
/// delivered when the woken app logs in.
public protocol VoIPWakeUps {
    func requestWakeUp(callee: WhisperID, caller: WhisperID, callId: CanonicalUUID)
}
