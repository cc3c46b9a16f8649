/// `delivery_receipt` (docs/protocol.md "Messaging (1:1)"), recipient → server, privileged:
///
///     {"protocolVersion":1,"cryptoVersion":1,"sessionToken":"…","messageId":"<uuid>",
///      "from":"WSP-<recipient>","to":"WSP-<original sender>","status":"delivered|read","timestamp":<ms>}
///
/// Shape only (`INVALID_PAYLOAD`). The service checks that `from` is the session's id
/// (`FORBIDDEN`) and that (`to`, `messageId`) names a message addressed to `from` (`NOT_FOUND`).
/// Receipts are not signed, so `messageIdText` is kept only to answer in the client's spelling.
public struct DeliveryReceiptPayload: Sendable, Equatable {
    public static let type = "delivery_receipt"
    public static let allowedKeys: Set<String> = PrivilegedPayload.commonKeys
        .union(["messageId", "from", "to", ReceiptStatus.key, "timestamp"])

    /// Lower case, for look-ups (docs/protocol.md "Encodings").
    public let messageId: CanonicalUUID
    /// Exactly as sent.
    public let messageIdText: String
    /// The recipient of the message, who sends the receipt.
    public let from: WhisperID
    /// The original sender of the message, who gets `message_delivered`.
    public let to: WhisperID
    public let status: ReceiptStatus
    /// Unix epoch milliseconds (when the recipient stored or read the message), ≥ 0.
    public let timestamp: Int64

    public init(messageIdText: String, from: WhisperID, to: WhisperID, status: ReceiptStatus, timestamp: Int64) throws(PayloadError) {
        guard let uuid = CanonicalUUID(messageIdText) else { throw .invalidUUID(field: "messageId") }
        guard timestamp >= 0 else { throw .outOfRange(field: "timestamp") }
        messageId = uuid
        self.messageIdText = messageIdText
        self.from = from
        self.to = to
        self.status = status
        self.timestamp = timestamp
    }

    public init(parsing payload: some JSONFieldSource) throws(PayloadError) {
        try payload.rejectUnknownKeys(allowed: Self.allowedKeys)
        (messageIdText, messageId) = try payload.requireSpelledUUID("messageId")
        from = try payload.requireWhisperID("from")
        to = try payload.requireWhisperID("to")
        status = try ReceiptStatus.require(in: payload)
        timestamp = try payload.requireTimestamp("timestamp")
    }
}
