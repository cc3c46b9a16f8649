/// `call_initiate`, `call_answer`, `call_ice_candidate`, `call_end` (docs/protocol.md "Calls"),
/// client → server, privileged:
///
///     {"protocolVersion":1,"cryptoVersion":1,"sessionToken":"…",
///      "callId":"<uuid>","from":"WSP-…","to":"WSP-…","isVideo":true (call_initiate only),
///      "timestamp":<ms>,"nonce":"base64(24)","ciphertext":"base64","sig":"base64(64)"}
///
/// Signed like a message (docs/protocol.md "Canonical signing") with the frame type as
/// `messageType`, `callId` in the `messageId` position and `to` as `toOrGroupId`. This type
/// checks shape and sizes (`INVALID_PAYLOAD`); who may signal on which call is the call
/// service's and the store's.
public struct CallSignalPayload: Sendable, Equatable {
    public static let nonceBytes = 24
    public static let signatureBytes = 64
    public static let isVideoKey = "isVideo"

    public let kind: CallSignalKind
    /// Lower case: the key of the call's state.
    public let callId: CanonicalUUID
    /// Exactly as sent: what the signature covers, and how server frames about the call spell it.
    public let callIdText: String
    public let from: WhisperID
    public let to: WhisperID
    /// `call_initiate` only.
    public let isVideo: Bool?
    public let timestamp: Int64
    public let signature: [UInt8]
    public let ciphertextByteCount: Int
    /// The complete frame `to` receives: `{"type":<kind>,"payload":{…}}`, the payload without the
    /// session members, every value the sender's bytes.
    public let forwardedFrame: [UInt8]

    let nonceText: ArraySlice<UInt8>
    let ciphertextText: ArraySlice<UInt8>

    /// The members forwarded to the other party, in this order (`isVideo` after `to` on an offer).
    public static func forwardedKeys(_ kind: CallSignalKind) -> [String] {
        let head = ["callId", "from", "to"], tail = ["timestamp", "nonce", "ciphertext", "sig"]
        return kind == .initiate ? head + [isVideoKey] + tail : head + tail
    }

    public init(parsing frame: InboundFrame, kind: CallSignalKind, limits: Limits) throws(PayloadError) {
        let payload = frame.fields
        let keys = Self.forwardedKeys(kind)
        try payload.rejectUnknownKeys(allowed: PrivilegedPayload.commonKeys.union(keys))
        self.kind = kind
        (callIdText, callId) = try payload.requireSpelledUUID("callId")
        from = try payload.requireWhisperID("from")
        to = try payload.requireWhisperID("to")
        guard to != from else { throw .invalidValue(field: "to") }
        isVideo = kind == .initiate ? try payload.requireBool(Self.isVideoKey) : nil
        timestamp = try payload.requireTimestamp("timestamp")
        _ = try payload.requireBase64("nonce", exactByteCount: Self.nonceBytes)
        nonceText = try payload.requireStringBytes("nonce")
        // May be empty: the blob is optional to encrypt, but it is always signed (docs/protocol.md "Calls").
        (ciphertextText, ciphertextByteCount) = try payload.requireBase64Text("ciphertext", maxByteCount: limits.maxCallCiphertextBytes)
        signature = try payload.requireBase64("sig", exactByteCount: Self.signatureBytes)
        forwardedFrame = CallEventFrames.forwarded(kind, payload: frame.forwardedPayload(keys: keys))
    }

    /// The bytes the signature covers, from the fields exactly as sent.
    public func signedBytes() -> [UInt8] {
        CanonicalSigning.signedBytes(messageType: kind.rawValue, messageId: callIdText, from: from.string,
                                     toOrGroupId: to.string, timestampMillis: timestamp,
                                     nonceBase64: nonceText, ciphertextBase64: ciphertextText)
    }
}
