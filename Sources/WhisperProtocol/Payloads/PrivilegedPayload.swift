/// What every privileged payload carries (docs/protocol.md "Frames"): `protocolVersion`, `cryptoVersion`
/// and `sessionToken`. The gateway checks these once for every privileged frame type
/// before its handler runs; handlers add their own fields to `commonKeys`.
public enum PrivilegedPayload {
    public static let sessionTokenKey = "sessionToken"
    public static let commonKeys: Set<String> = [
        ProtocolVersion.protocolVersionKey, ProtocolVersion.cryptoVersionKey, sessionTokenKey,
    ]

    /// The presented token text: `nil` when absent or `null` (→ `NOT_REGISTERED`); a
    /// non-string is a schema violation (→ `INVALID_PAYLOAD`).
    public static func sessionToken(in payload: JSONObject) throws(PayloadError) -> String? {
        try payload.optionalString(sessionTokenKey)
    }

    /// Payloads of frames that carry nothing but the common members (`session_refresh`,
    /// `logout`): rejects anything else.
    public static func requireOnlyCommonKeys(_ payload: JSONObject) throws(PayloadError) {
        try payload.rejectUnknownKeys(allowed: commonKeys)
    }
}
