/// The four signed call-signalling frames (docs/protocol.md "Calls"). `rawValue` is the frame
/// type, which is also the `messageType` of the canonical signed bytes and the type the
/// frame is forwarded under.
public enum CallSignalKind: String, Sendable, CaseIterable {
    /// The offer (SDP in `ciphertext`), with `isVideo`; creates the call.
    case initiate = "call_initiate"
    /// The callee's answer (SDP).
    case answer = "call_answer"
    /// One trickled ICE candidate, either way, from the offer on.
    case iceCandidate = "call_ice_candidate"
    /// Hang up, reject or cancel.
    case end = "call_end"
}
