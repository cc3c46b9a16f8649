/// `update_tokens` (docs/protocol.md "update_tokens → tokens_updated"), client → server,
/// privileged:
///
///     {"protocolVersion":1,"cryptoVersion":1,"sessionToken":"…","pushToken":"…"?,"voipToken":"…"?,"platform":"ios"|"android"}
///
/// Absent or `null` tokens leave the stored ones as they are; the platform is required (a
/// phone's tokens mean something only to its platform's push provider).
public struct UpdateTokensPayload: Sendable, Equatable {
    public static let type = "update_tokens"
    public static let allowedKeys: Set<String> = PrivilegedPayload.commonKeys.union(["pushToken", "voipToken", "platform"])

    public let pushToken: String?
    public let voipToken: String?
    public let platform: Platform

    public init(pushToken: String?, voipToken: String?, platform: Platform) {
        self.pushToken = pushToken
        self.voipToken = voipToken
        self.platform = platform
    }

    public init(parsing payload: JSONObject, limits: Limits) throws(PayloadError) {
        try payload.rejectUnknownKeys(allowed: Self.allowedKeys)
        pushToken = try PushToken.optional("pushToken", in: payload, limits: limits)
        voipToken = try PushToken.optional("voipToken", in: payload, limits: limits)
        platform = try Platform.require("platform", in: payload)
    }
}
