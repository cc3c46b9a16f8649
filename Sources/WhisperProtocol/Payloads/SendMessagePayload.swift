/// `send_message` (docs/protocol.md "Messaging (1:1)"), client → server, privileged:
///
///     {"protocolVersion":1,"cryptoVersion":1,"sessionToken":"…",
///      "messageId":"<uuid>","from":"WSP-…","to":"WSP-…","msgType":"text|image|voice|file|system",
///      "timestamp":<ms>,"nonce":"base64(24)","ciphertext":"base64","sig":"base64(64)",
///      "replyTo":"<uuid>"|null?,"reactions":{…}|null?,"attachment":{…}|null?}
///
/// The gateway has already checked the versions and the session token; this type checks the rest
/// of the shape and sizes (`INVALID_PAYLOAD`). The checks that need state — `from` is the session's
/// id, the timestamp window, the signature, the recipient — are the messaging service's.
///
/// Nothing signed is re-encoded (docs/protocol.md "Canonical signing"): `deliveryPayload` is built from the sender's exact
/// bytes, and `signedBytes()` from the decoded strings exactly as sent (no case folding).
///
/// `group_send_message` (docs/protocol.md "Groups") is the same payload plus `"groupId":"grp-<uuid>"`: one
/// per-recipient envelope of a pairwise fan-out, signed with `messageType` `group_send_message` and
/// the `groupId` as `toOrGroupId`, delivered as `message_received` with `groupId` included.
public struct SendMessagePayload: Sendable, Equatable {
    public static let type = "send_message"
    public static let groupType = "group_send_message"
    public static let groupIdKey = "groupId"
    public static let nonceBytes = 24
    public static let signatureBytes = 64

    /// The members of `message_received` (docs/protocol.md "Messaging (1:1)"), always present, in this order…
    public static let deliveredKeys = ["messageId", "from", "to", "msgType", "timestamp", "nonce", "ciphertext", "sig"]
    /// …then these, each only if the sender wrote it (a `null` is passed on as `null`).
    public static let optionalDeliveredKeys = ["replyTo", MessageReactions.key, AttachmentPointer.key]
    public static let allowedKeys: Set<String> = PrivilegedPayload.commonKeys
        .union(deliveredKeys).union(optionalDeliveredKeys)
    public static let groupAllowedKeys: Set<String> = allowedKeys.union([groupIdKey])

    /// `send_message` or `group_send_message`: the `messageType` of the signed bytes.
    public let messageType: String
    /// The group of a `group_send_message` (canonical, for look-ups); nil for `send_message`.
    public let groupId: GroupID?
    /// `groupId` exactly as sent: what the signature covers.
    public let groupIdText: String?

    /// Lower case, for idempotency keys and look-ups (docs/protocol.md "Encodings").
    public let messageId: CanonicalUUID
    /// Exactly as sent (decoded JSON string): what the signature covers.
    public let messageIdText: String
    public let from: WhisperID
    public let to: WhisperID
    public let kind: MessageKind
    /// Unix epoch milliseconds, ≥ 0; the ±10 min window is the service's check.
    public let timestamp: Int64
    /// Ed25519 over SHA-256(`signedBytes()`), 64 bytes.
    public let signature: [UInt8]
    /// Decoded ciphertext length, for logs and metrics (docs/operations.md "Logs": sizes only).
    public let ciphertextByteCount: Int
    public let replyTo: CanonicalUUID?
    /// The attachment pointer, when present and not `null` (for download rights and GC).
    public let attachment: AttachmentPointer?
    /// The complete `message_received` payload object, ready for `MessageFrames.messageReceived`
    /// and for the pending queue.
    public let deliveryPayload: [UInt8]

    /// Signed text fields as sent (decoded JSON strings, usually a slice of the frame), for
    /// `signedBytes()`.
    let nonceText: ArraySlice<UInt8>
    let ciphertextText: ArraySlice<UInt8>

    /// Parses a `send_message`, or a `group_send_message` when that is the frame's type.
    public init(parsing frame: InboundFrame, limits: Limits) throws(PayloadError) {
        let payload = frame.fields
        let isGroup = frame.type == Self.groupType
        messageType = isGroup ? Self.groupType : Self.type
        try payload.rejectUnknownKeys(allowed: isGroup ? Self.groupAllowedKeys : Self.allowedKeys)
        if isGroup {
            let text = try payload.requireString(Self.groupIdKey)
            guard let id = GroupID(text) else { throw .invalidGroupID(field: Self.groupIdKey) }
            (groupIdText, groupId) = (text, id)
        } else {
            (groupIdText, groupId) = (nil, nil)
        }
        (messageIdText, messageId) = try payload.requireSpelledUUID("messageId")
        from = try payload.requireWhisperID("from")
        to = try payload.requireWhisperID("to")
        kind = try MessageKind.require(in: payload)
        timestamp = try payload.requireTimestamp("timestamp")
        _ = try payload.requireBase64("nonce", exactByteCount: Self.nonceBytes)
        nonceText = try payload.requireStringBytes("nonce")
        // Text and system messages are capped (docs/protocol.md "Messaging (1:1)"); media kinds carry their bytes in the
        // attachment, so their ciphertext is bounded only by the frame size.
        let maxCiphertext = kind.hasTextCiphertextCap ? limits.maxTextCiphertextBytes : limits.maxWebSocketMessageBytes
        (ciphertextText, ciphertextByteCount) = try payload.requireBase64Text("ciphertext", maxByteCount: maxCiphertext)
        guard ciphertextByteCount >= 1 else { throw .invalidValue(field: "ciphertext") }
        signature = try payload.requireBase64("sig", exactByteCount: Self.signatureBytes)
        replyTo = try payload.optionalUUID("replyTo")
        try MessageReactions.validateOptional(in: payload, limits: limits)
        attachment = try AttachmentPointer.optional(in: payload, limits: limits)
        deliveryPayload = Self.deliveryPayload(of: frame, group: isGroup)
    }

    /// The bytes the signature covers (docs/protocol.md "Canonical signing", docs/protocol.md "Messaging (1:1)"), from the fields exactly as sent.
    public func signedBytes() -> [UInt8] {
        CanonicalSigning.signedBytes(
            messageType: messageType,
            messageId: messageIdText,
            from: from.string,
            toOrGroupId: groupIdText ?? to.string,
            timestampMillis: timestamp,
            nonceBase64: nonceText,
            ciphertextBase64: ciphertextText
        )
    }

    /// `{"messageId":…,…,"sig":…[,"groupId":…][,"replyTo":…][,"reactions":…][,"attachment":…]}` with
    /// every value spliced from the frame's bytes; `sessionToken` and the versions are left behind.
    /// `groupId` is spliced as sent too: the recipient verifies the signature over it.
    static func deliveryPayload(of frame: InboundFrame, group: Bool) -> [UInt8] {
        frame.forwardedPayload(keys: group ? deliveredKeys + [groupIdKey] : deliveredKeys, optionalKeys: optionalDeliveredKeys)
    }
}
