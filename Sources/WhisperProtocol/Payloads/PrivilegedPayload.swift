/// What every privileged payload carries (docs/protocol.md "Frames"): `protocolVersion`, `cryptoVersion`
/// and `sessionToken`. The gateway checks these once for every privileged frame type
/// before its handler runs; handlers add their own fields to `commonKeys`.
public enum PrivilegedPayload {
    public static let sessionTokenKey = "sessionToken"
    public static let commonKeys: Set<String> = [
        ProtocolVersion.protocolVersionKey, ProtocolVersion.cryptoVersionKey, sessionTokenKey,
    ]

    /// The presented token's text, as the frame's bytes: `nil` when absent or `null`
    /// (→ `NOT_REGISTERED`); a non-string is a schema violation (→ `INVALID_PAYLOAD`).
    public static func sessionToken(in payload: JSONFields) throws(PayloadError) -> ArraySlice<UInt8>? {
        switch payload[valueOf: sessionTokenKey] {
        case nil, .decoded(.null)?: return nil
        case .string?: return try payload.requireStringBytes(sessionTokenKey)
        case .decoded?: throw .wrongType(field: sessionTokenKey, expected: .string)
        }
    }

    /// Payloads of frames that carry nothing but the common members (`session_refresh`,
    /// `logout`): rejects anything else.
    public static func requireOnlyCommonKeys(_ payload: some JSONFieldSource) throws(PayloadError) {
        try payload.rejectUnknownKeys(allowed: commonKeys)
    }
}
