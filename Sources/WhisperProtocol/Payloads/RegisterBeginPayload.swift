/// `register_begin` (docs/protocol.md "Identity and sessions"), client → server, not privileged:
///
///     {"protocolVersion":1,"cryptoVersion":1,"whisperId":"WSP-…"?,"deviceId":"<uuid>","platform":"ios"}
///
/// `whisperId` present (recovery login) → checksum-validated; absent or `null` → a new identity.
public struct RegisterBeginPayload: Sendable, Equatable {
    public static let type = "register_begin"
    public static let allowedKeys: Set<String> = [
        ProtocolVersion.protocolVersionKey, ProtocolVersion.cryptoVersionKey, "whisperId", "deviceId", "platform",
    ]

    public var whisperId: WhisperID?
    public var deviceId: CanonicalUUID
    public var platform: Platform

    public init(whisperId: WhisperID?, deviceId: CanonicalUUID, platform: Platform) {
        self.whisperId = whisperId
        self.deviceId = deviceId
        self.platform = platform
    }

    public init(parsing payload: JSONObject) throws(PayloadError) {
        try payload.rejectUnknownKeys(allowed: Self.allowedKeys)
        try ProtocolVersion.check(payload)
        whisperId = try payload.optionalWhisperID("whisperId")
        deviceId = try payload.requireUUID("deviceId")
        platform = try Platform.require("platform", in: payload)
    }
}
