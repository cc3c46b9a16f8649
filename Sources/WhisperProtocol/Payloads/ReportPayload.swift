/// The body of `POST /reports` (docs/protocol.md "POST /reports"):
///
///     {"whisperId":"WSP-…","reason":"spam"|"abuse"|"impersonation"|"other","details":"…"?,"messageId":"uuid"?}
public struct ReportPayload: Sendable, Equatable {
    public enum Reason: String, Sendable, CaseIterable {
        case spam, abuse, impersonation, other
    }

    public static let allowedKeys: Set<String> = ["whisperId", "reason", "details", "messageId"]
    /// A report's JSON body is small: the reported id, a reason, a note, a message id.
    public static func maxBodyBytes(limits: Limits) -> Int { limits.maxReportDetailsBytes * 6 + 512 }

    public let whisperId: WhisperID
    public let reason: Reason
    /// Free text for the moderator, at most `Limits.maxReportDetailsBytes` UTF-8 bytes.
    public let details: String?
    /// The message being reported, as the reporter's client spelt it and canonical.
    public let messageId: CanonicalUUID?

    public init(body: [UInt8], limits: Limits) throws(PayloadError) {
        let payload = try JSONObject(httpBody: body, maxBytes: Self.maxBodyBytes(limits: limits))
        try payload.rejectUnknownKeys(allowed: Self.allowedKeys)
        whisperId = try payload.requireWhisperID("whisperId")
        guard let reason = Reason(rawValue: try payload.requireString("reason")) else { throw .invalidValue(field: "reason") }
        self.reason = reason
        details = try payload.optionalString("details")
        if let details, details.utf8.count > limits.maxReportDetailsBytes {
            throw .tooLarge(field: "details", maxBytes: limits.maxReportDetailsBytes)
        }
        messageId = try payload.optionalUUID("messageId")
    }
}
