/// `PUT /admin/log-level {level}`: the node's new minimum log level.
public struct AdminLogLevelPayload: Sendable, Equatable {
    public static let allowedKeys: Set<String> = ["level"]
    public static let levels: Set<String> = ["debug", "info", "warn", "error"]
    public static let maxBodyBytes = 128

    /// One of `levels`.
    public let level: String

    public init(body: [UInt8]) throws(PayloadError) {
        let payload = try JSONObject(httpBody: body, maxBytes: Self.maxBodyBytes)
        try payload.rejectUnknownKeys(allowed: Self.allowedKeys)
        let level = try payload.requireString("level")
        guard Self.levels.contains(level) else { throw .invalidValue(field: "level") }
        self.level = level
    }
}
