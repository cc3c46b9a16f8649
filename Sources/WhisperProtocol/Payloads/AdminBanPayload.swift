/// The body of `POST /admin/ban` (docs/protocol.md "Admin API"):
///
///     {"whisperId":"WSP-…","reason":"spam","until":1763820000000?}
///
/// `until` (epoch ms) absent or `null` is a permanent ban. Whether it lies in the future is
/// the service's check (it knows the time); here it only has to be a positive integer.
public struct AdminBanPayload: Sendable, Equatable {
    public static let allowedKeys: Set<String> = ["whisperId", "reason", "until"]
    public static func maxBodyBytes(limits: Limits) -> Int { limits.maxBanReasonBytes * 6 + 256 }

    public let whisperId: WhisperID
    /// Free text for the operators, 1…`Limits.maxBanReasonBytes` UTF-8 bytes.
    public let reason: String
    public let untilMillis: Int64?

    public init(whisperId: WhisperID, reason: String, untilMillis: Int64?) {
        self.whisperId = whisperId
        self.reason = reason
        self.untilMillis = untilMillis
    }

    public init(body: [UInt8], limits: Limits) throws(PayloadError) {
        let payload = try JSONObject(httpBody: body, maxBytes: Self.maxBodyBytes(limits: limits))
        try payload.rejectUnknownKeys(allowed: Self.allowedKeys)
        whisperId = try payload.requireWhisperID("whisperId")
        reason = try payload.requireString("reason")
        // NUL cannot travel as a libpq text parameter; a reason is a line of text anyway.
        guard !reason.isEmpty, !reason.utf8.contains(0) else { throw .invalidValue(field: "reason") }
        guard reason.utf8.count <= limits.maxBanReasonBytes else {
            throw .tooLarge(field: "reason", maxBytes: limits.maxBanReasonBytes)
        }
        untilMillis = try payload.optionalInt64("until")
        if let untilMillis, untilMillis <= 0 { throw .outOfRange(field: "until") }
    }
}
