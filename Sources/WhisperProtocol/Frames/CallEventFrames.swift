/// Server frames of call signalling (docs/protocol.md "Calls"). None is a reply: no `requestId`.
/// Frames the Redis scripts assemble (for parties on other nodes, or at a login) are built
/// from the prefix/suffix pairs here, the one definition of their envelope.
public enum CallEventFrames {
    public static let ringingType = "call_ringing"
    /// `call_end.reason` of a call nobody answered in time.
    public static let timeoutReason = "timeout"

    /// A signal for the other party, under the sender's frame type:
    ///
    ///     {"type":"call_answer","payload":<the sender's members, byte for byte>}
    public static func forwarded(_ kind: CallSignalKind, payload: [UInt8]) -> [UInt8] {
        let prefix = #"{"type":""# + kind.rawValue + #"","payload":"#
        return Array(prefix.utf8) + payload + Array("}".utf8)
    }

    /// To the caller, once the offer is on the callee's socket (at once, or at its login):
    ///
    ///     {"type":"call_ringing","payload":{"callId":"…"}}
    public static let ringingPrefix = #"{"type":"call_ringing","payload":{"callId":""#
    public static let ringingSuffix = #""}}"#

    /// To both parties when a call rang out:
    ///
    ///     {"type":"call_end","payload":{"callId":"…","reason":"timeout"}}
    public static let timeoutPrefix = #"{"type":"call_end","payload":{"callId":""#
    public static let timeoutSuffix = #"","reason":""# + timeoutReason + #""}}"#

    /// `callIdText` is a UUID as a client spelt it (hex digits and dashes): nothing to escape.
    public static func ringing(callIdText: String) -> [UInt8] { Array((ringingPrefix + callIdText + ringingSuffix).utf8) }

    public static func timeout(callIdText: String) -> [UInt8] { Array((timeoutPrefix + callIdText + timeoutSuffix).utf8) }
}
