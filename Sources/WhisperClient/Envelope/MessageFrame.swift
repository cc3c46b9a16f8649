import WhisperProtocol

/// The text of a `send_message` or `group_send_message` frame around a sealed envelope
/// (spec §4.1, §7; docs/protocol.md "Messaging (1:1)", "Groups"):
///
///     {"type":"send_message","requestId":"…","payload":{"protocolVersion":1,"cryptoVersion":1,
///      "sessionToken":"…",["groupId":"grp-…",]"messageId":"…","from":"WSP-…","to":"WSP-…",
///      "msgType":"text","timestamp":…,"nonce":"…","ciphertext":"…","sig":"…"[,"attachment":{…}]}}
///
/// Only what this slice proves against the server's parser; `replyTo`, `reactions` and the call
/// frames belong to the client's frame layer.
public enum MessageFrame {
    /// The frame bytes, or nil for a call envelope (call frames have other members).
    public static func encode(_ envelope: SealedEnvelope, msgType: MessageKind, sessionToken: String, requestId: String?,
                              attachment: AttachmentPointerFields? = nil) -> [UInt8]? {
        let groupId: String?
        switch envelope.kind {
        case .message: groupId = nil
        case .groupMessage(let id): groupId = id
        case .call: return nil
        }
        var writer = JSONWriter()
        writer.beginObject()
        writer.member("type", envelope.kind.messageType)
        if let requestId { writer.member("requestId", requestId) }
        writer.key("payload")
        writer.beginObject()
        writer.member(ProtocolVersion.protocolVersionKey, ProtocolVersion.protocolVersion)
        writer.member(ProtocolVersion.cryptoVersionKey, ProtocolVersion.cryptoVersion)
        writer.member(PrivilegedPayload.sessionTokenKey, sessionToken)
        if let groupId { writer.member(SendMessagePayload.groupIdKey, groupId) }
        writer.member("messageId", envelope.id)
        writer.member("from", envelope.from.string)
        writer.member("to", envelope.to.string)
        writer.member(MessageKind.key, msgType.rawValue)
        writer.member("timestamp", envelope.timestampMillis)
        writer.member("nonce", envelope.nonceBase64)
        writer.member("ciphertext", envelope.ciphertextBase64)
        writer.member("sig", envelope.signatureBase64)
        if let attachment {
            writer.key(AttachmentPointer.key)
            attachment.write(to: &writer)
        }
        writer.endObject()
        writer.endObject()
        return writer.bytes
    }
}
