import WhisperProtocol

/// One outgoing envelope and where it is in the send state machine (spec §5.3):
///
///     queued ──send──▶ sending ──message_accepted──▶ sent ──message_delivered──▶ delivered ──read──▶ read
///        ▲                │
///        └──retryable─────┘  (attempts < 10, next try after a backoff)      else ──▶ failed
///
/// The sealed bytes are kept, not the plaintext: a retry sends the same `messageId`, nonce and
/// ciphertext (the server's idempotency key is (`from`, `to`, `messageId`)); only a retry whose
/// timestamp left the ±10 min window is signed again with a fresh one.
public struct OutboxEntry: Equatable, Sendable {
    public enum State: String, Sendable { case queued, sending, sent, delivered, read, failed }

    public let messageId: String
    public let to: WhisperID
    public let groupId: String?
    public let msgType: MessageKind
    /// The encrypted upload this envelope points to (its `fileKeyBox` is this recipient's).
    public let attachment: AttachmentPointerFields?
    public internal(set) var timestamp: Int64
    public let nonce: [UInt8]
    public let ciphertext: [UInt8]
    public internal(set) var signature: [UInt8]
    public internal(set) var state: State
    public internal(set) var attempts: Int
    /// Unix ms before which a queued entry is not sent again.
    public internal(set) var nextAttemptAt: Int64
    public internal(set) var lastError: String?

    init(envelope: SealedEnvelope, msgType: MessageKind, groupId: String?, attachment: AttachmentPointerFields? = nil) {
        (messageId, to, self.groupId, self.msgType, self.attachment) = (envelope.id, envelope.to, groupId, msgType, attachment)
        (timestamp, nonce, ciphertext, signature) = (envelope.timestampMillis, envelope.nonce, envelope.ciphertext, envelope.signature)
        (state, attempts, nextAttemptAt, lastError) = (.queued, 0, 0, nil)
    }

    /// Identifies the envelope: a group message has one `messageId` and one envelope per member.
    public var key: String { Self.key(messageId: messageId, to: to) }

    static func key(messageId: String, to: WhisperID) -> String { messageId.lowercased() + "/" + to.string }

    func envelope(from: WhisperID) -> SealedEnvelope {
        SealedEnvelope(kind: groupId.map { .groupMessage(groupId: $0) } ?? .message, id: messageId, from: from, to: to,
                       timestampMillis: timestamp, nonce: nonce, ciphertext: ciphertext, signature: signature)
    }

    func write(to w: inout JSONWriter) {
        w.beginObject()
        w.member("messageId", messageId)
        w.member("to", to.string)
        if let groupId { w.member("groupId", groupId) }
        w.member("msgType", msgType.rawValue)
        w.member("timestamp", timestamp)
        w.member("nonce", Base64.encode(nonce))
        w.member("ciphertext", Base64.encode(ciphertext))
        w.member("sig", Base64.encode(signature))
        if let attachment {
            w.key(AttachmentPointer.key)
            attachment.write(to: &w)
        }
        w.member("state", state.rawValue)
        w.member("attempts", Int64(attempts))
        w.member("nextAttemptAt", nextAttemptAt)
        if let lastError { w.member("lastError", lastError) }
        w.endObject()
    }

    init?(json: JSONValue) {
        guard let messageId = json["messageId"]?.stringValue, let to = json["to"]?.stringValue.flatMap(WhisperID.validate),
              let msgType = json["msgType"]?.stringValue.flatMap(MessageKind.init(rawValue:)),
              let timestamp = json["timestamp"]?.int64Value,
              let nonce = json["nonce"]?.stringValue.flatMap(Base64.decode),
              let ciphertext = json["ciphertext"]?.stringValue.flatMap(Base64.decode),
              let signature = json["sig"]?.stringValue.flatMap(Base64.decode),
              let state = json["state"]?.stringValue.flatMap(State.init(rawValue:)),
              let attempts = json["attempts"]?.int64Value.flatMap({ Int(exactly: $0) }),
              let nextAttemptAt = json["nextAttemptAt"]?.int64Value
        else { return nil }
        if let pointer = json[AttachmentPointer.key] {
            guard let attachment = AttachmentPointerFields(json: pointer) else { return nil }
            self.attachment = attachment
        } else {
            attachment = nil
        }
        (self.messageId, self.to, self.groupId, self.msgType) = (messageId, to, json["groupId"]?.stringValue, msgType)
        (self.timestamp, self.nonce, self.ciphertext, self.signature) = (timestamp, nonce, ciphertext, signature)
        (self.state, self.attempts, self.nextAttemptAt) = (state, attempts, nextAttemptAt)
        lastError = json["lastError"]?.stringValue
    }
}
