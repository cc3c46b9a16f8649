/// Mandatory versioning (docs/protocol.md "Frames"): every privileged payload carries `protocolVersion` and
/// `cryptoVersion`, both the integer 1 (`1.0` is not accepted). Anything else → `INVALID_PAYLOAD`.
public enum ProtocolVersion {
    public static let protocolVersion: Int64 = 1
    public static let cryptoVersion: Int64 = 1
    public static let protocolVersionKey = "protocolVersion"
    public static let cryptoVersionKey = "cryptoVersion"

    public static func check(_ payload: some JSONFieldSource) throws(PayloadError) {
        try checkField(protocolVersionKey, expected: protocolVersion, in: payload)
        try checkField(cryptoVersionKey, expected: cryptoVersion, in: payload)
    }

    static func checkField(_ key: String, expected: Int64, in payload: some JSONFieldSource) throws(PayloadError) {
        guard let value = payload[key] else { throw .missingField(key) }
        guard case let .int(version) = value else { throw .wrongType(field: key, expected: .int) }
        guard version == expected else { throw .unsupportedVersion(field: key, expected: expected) }
    }
}
