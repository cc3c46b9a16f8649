/// A device's platform (docs/protocol.md "Identity and sessions"): exactly `ios` or `android`, lower case.
public enum Platform: String, Sendable, CaseIterable {
    case ios
    case android

    /// Reads the required `key` member.
    public static func require(_ key: String, in payload: JSONObject) throws(PayloadError) -> Platform {
        guard let platform = Platform(rawValue: try payload.requireString(key)) else { throw .invalidValue(field: key) }
        return platform
    }
}
