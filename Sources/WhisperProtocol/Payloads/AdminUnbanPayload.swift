/// The body of `POST /admin/unban` (docs/protocol.md "Admin API"): `{"whisperId":"WSP-…"}`.
public struct AdminUnbanPayload: Sendable, Equatable {
    public static let allowedKeys: Set<String> = ["whisperId"]
    public static let maxBodyBytes = 256

    public let whisperId: WhisperID

    public init(body: [UInt8]) throws(PayloadError) {
        let payload = try JSONObject(httpBody: body, maxBytes: Self.maxBodyBytes)
        try payload.rejectUnknownKeys(allowed: Self.allowedKeys)
        whisperId = try payload.requireWhisperID("whisperId")
    }
}
