/// `register_proof` (docs/protocol.md "Identity and sessions"), client → server, not privileged:
///
///     {"protocolVersion":1,"cryptoVersion":1,"challengeId":"<uuid>","deviceId":"<uuid>",
///      "platform":"ios|android","whisperId":"WSP-…"?,"encPublicKey":"base64(32)",
///      "signPublicKey":"base64(32)","signature":"base64(64)","pushToken":"…"?,"voipToken":"…"?}
///
/// `signature` is Ed25519 by `signPublicKey` over the 32 raw challenge bytes (no hashing).
public struct RegisterProofPayload: Sendable, Equatable {
    public static let type = "register_proof"
    public static let allowedKeys: Set<String> = [
        ProtocolVersion.protocolVersionKey, ProtocolVersion.cryptoVersionKey, "challengeId", "deviceId", "platform",
        "whisperId", "encPublicKey", "signPublicKey", "signature", "pushToken", "voipToken",
    ]
    public static let publicKeyBytes = 32
    public static let signatureBytes = 64

    public var challengeId: CanonicalUUID
    public var deviceId: CanonicalUUID
    public var platform: Platform
    public var whisperId: WhisperID?
    /// X25519 public key, 32 bytes.
    public var encPublicKey: [UInt8]
    /// Ed25519 public key, 32 bytes.
    public var signPublicKey: [UInt8]
    public var signature: [UInt8]
    public var pushToken: String?
    public var voipToken: String?

    public init(challengeId: CanonicalUUID, deviceId: CanonicalUUID, platform: Platform, whisperId: WhisperID?,
                encPublicKey: [UInt8], signPublicKey: [UInt8], signature: [UInt8],
                pushToken: String? = nil, voipToken: String? = nil) {
        self.challengeId = challengeId
        self.deviceId = deviceId
        self.platform = platform
        self.whisperId = whisperId
        self.encPublicKey = encPublicKey
        self.signPublicKey = signPublicKey
        self.signature = signature
        self.pushToken = pushToken
        self.voipToken = voipToken
    }

    public init(parsing payload: JSONObject, limits: Limits) throws(PayloadError) {
        try payload.rejectUnknownKeys(allowed: Self.allowedKeys)
        try ProtocolVersion.check(payload)
        challengeId = try payload.requireUUID("challengeId")
        deviceId = try payload.requireUUID("deviceId")
        platform = try Platform.require("platform", in: payload)
        whisperId = try payload.optionalWhisperID("whisperId")
        encPublicKey = try payload.requireBase64("encPublicKey", exactByteCount: Self.publicKeyBytes)
        signPublicKey = try payload.requireBase64("signPublicKey", exactByteCount: Self.publicKeyBytes)
        signature = try payload.requireBase64("signature", exactByteCount: Self.signatureBytes)
        pushToken = try PushToken.optional("pushToken", in: payload, limits: limits)
        voipToken = try PushToken.optional("voipToken", in: payload, limits: limits)
    }
}
