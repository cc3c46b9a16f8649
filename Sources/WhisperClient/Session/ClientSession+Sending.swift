import Foundation
import WhisperProtocol

extension ClientSession {
    /// Seals `text` to `to`, queues it in the persisted outbox, and sends it now if connected
    /// (otherwise on the next connect). Returns the `messageId`. The contact's keys must be
    /// pinned already when offline.
    @discardableResult
    public func send(text: String, to: WhisperID) throws(ClientError) -> String {
        let plaintext = Array(text.utf8)
        guard plaintext.count <= Limits.default.maxTextPlaintextBytes else {
            throw .server(code: "INVALID_PAYLOAD", message: "text over \(Limits.default.maxTextPlaintextBytes) bytes", retryAfterMillis: nil)
        }
        return try send(plaintext, msgType: .text, to: to)
    }

    /// Queues one envelope of any kind (the plaintext is the app's structure for non-text kinds).
    /// `attachment`: an upload (`uploadAttachment`), its file key boxed to `to` here.
    @discardableResult
    public func send(_ plaintext: [UInt8], msgType: MessageKind, to: WhisperID,
                     attachment: UploadedAttachment? = nil) throws(ClientError) -> String {
        guard let me = account.whisperId else { throw .noIdentity }
        let keys = try contactKeys(to)
        let messageId = UUID().uuidString.lowercased()
        let pointer: AttachmentPointerFields?
        do {
            pointer = try attachment.map { upload throws(ClientCryptoError) in
                try upload.pointer(boxedBy: identity, to: keys.encPublicKey)
            }
        } catch {
            throw .protocolViolation("cannot box the file key: \(error)")
        }
        let envelope: SealedEnvelope
        do {
            envelope = try identity.seal(plaintext, kind: .message, id: messageId, from: me, to: to, timestampMillis: clock(),
                                         recipientEncPublicKey: keys.encPublicKey)
        } catch {
            throw .protocolViolation("cannot seal: \(error)")
        }
        outbox.enqueue(OutboxEntry(envelope: envelope, msgType: msgType, groupId: nil, attachment: pointer))
        try outbox.save(in: home)
        if connection != nil { try flushOutbox() }
        return messageId
    }

    /// Sends every due outbox entry, one request at a time, saving each transition.
    func flushOutbox() throws(ClientError) {
        guard connection != nil, let token = account.sessionToken, let me = account.whisperId else { return }
        for id in outbox.due(now: clock()) {
            guard let entry = outbox.entry(key: id) else { continue }
            var envelope = entry.envelope(from: me)
            // Half the server's ±10 min window: a retry never arrives just outside it.
            if abs(clock() - envelope.timestampMillis) > Limits.default.timestampSkewMillis / 2 {
                envelope = try resign(entry, from: me)
            }
            outbox.markSending(id)
            try outbox.save(in: home)
            let reply: JSONValue
            do {
                reply = try request { requestId in
                    MessageFrame.encode(envelope, msgType: entry.msgType, sessionToken: token, requestId: requestId,
                                        attachment: entry.attachment) ?? []
                }
            } catch {
                outbox.requeue(id)
                try outbox.save(in: home)
                throw error
            }
            do {
                _ = try expect("message_accepted", reply)
                outbox.markSent(id)
                try outbox.save(in: home)
                onEvent(.sent(messageId: entry.messageId))
            } catch .server(let code, let message, let retryAfter) {
                try failed(id, code: code, message: message, retryAfterMillis: retryAfter)
            }
        }
    }

    private func failed(_ id: String, code: String, message: String, retryAfterMillis: Int64?) throws(ClientError) {
        switch code {
        case "NOT_REGISTERED":
            // The session died under us: log in again and resend.
            outbox.requeue(id)
            try outbox.save(in: home)
            throw .server(code: code, message: message, retryAfterMillis: nil)
        case "INVALID_TIMESTAMP":
            // Our clock or a long wait: the next try signs a fresh timestamp.
            if let entry = outbox.entry(key: id), let me = account.whisperId { _ = try resign(entry, from: me) }
            outbox.markFailed(id, error: code, retryable: true, now: clock(), retryAfterMillis: 0)
        default:
            let retryable = code == "RATE_LIMITED" || code == "INTERNAL_ERROR"
            if outbox.markFailed(id, error: "\(code): \(message)", retryable: retryable, now: clock(),
                                 retryAfterMillis: retryAfterMillis) == .failed {
                onEvent(.failed(messageId: outbox.entry(key: id)?.messageId ?? id, reason: "\(code): \(message)"))
            }
        }
        try outbox.save(in: home)
    }

    /// Signs the same nonce and ciphertext again over a fresh timestamp.
    private func resign(_ entry: OutboxEntry, from me: WhisperID) throws(ClientError) -> SealedEnvelope {
        let timestamp = clock()
        var envelope = entry.envelope(from: me)
        let bytes = SealedEnvelope.signedBytes(kind: envelope.kind, id: envelope.id, from: me, to: envelope.to,
                                               timestampMillis: timestamp, nonce: envelope.nonce, ciphertext: envelope.ciphertext)
        let signature = identity.sign(signedBytes: bytes)
        outbox.resign(entry.key, timestamp: timestamp, signature: signature)
        try outbox.save(in: home)
        envelope = SealedEnvelope(kind: envelope.kind, id: envelope.id, from: me, to: envelope.to, timestampMillis: timestamp,
                                  nonce: envelope.nonce, ciphertext: envelope.ciphertext, signature: signature)
        return envelope
    }
}
