/// `call_received {callId}` (docs/protocol.md "Calls"): the callee's app confirms that a
/// forwarded `call_initiate` reached it, so the caller hears `call_ringing` (contract §15).
/// Not signed: it carries no ciphertext, and the session says who confirms.
public struct CallReceivedPayload: Sendable, Equatable {
    public static let type = "call_received"
    /// The reply, to the first confirmation and to a repeat alike.
    public static let confirmedType = "call_confirmed"

    /// Lower case, for look-ups.
    public let callId: CanonicalUUID
    /// Exactly as sent, echoed in the reply.
    public let callIdText: String

    public init(parsing payload: some JSONFieldSource) throws(PayloadError) {
        try payload.rejectUnknownKeys(allowed: PrivilegedPayload.commonKeys.union(["callId"]))
        (callIdText, callId) = try payload.requireSpelledUUID("callId")
    }
}
