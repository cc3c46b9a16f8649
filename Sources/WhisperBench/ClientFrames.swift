import WhisperProtocol

/// The JSON text of every frame the benchmark sends, built with the protocol module's writer
/// (no Foundation, no dictionaries) so the generator stays cheap next to the server it drives.
/// Member order follows docs/protocol.md.
enum ClientFrames {
    static func registerBegin(requestId: String, identity: BenchIdentity, whisperId: String?) -> [UInt8] {
        frame("register_begin", requestId: requestId) { w in
            versions(&w)
            w.member("deviceId", identity.deviceId)
            w.member("platform", identity.platform)
            if let whisperId { w.member("whisperId", whisperId) }
        }
    }

    /// Signs the 32 raw challenge bytes (docs/protocol.md "Identity and sessions": no hashing, no encoding).
    static func registerProof(requestId: String, identity: BenchIdentity, challengeId: String,
                              challenge: [UInt8], whisperId: String?) -> [UInt8] {
        frame("register_proof", requestId: requestId) { w in
            versions(&w)
            w.member("challengeId", challengeId)
            w.member("deviceId", identity.deviceId)
            w.member("platform", identity.platform)
            if let whisperId { w.member("whisperId", whisperId) }
            w.member("encPublicKey", identity.encPublicKeyBase64)
            w.member("signPublicKey", identity.signPublicKeyBase64)
            w.member("signature", Base64.encode(identity.sign(challenge)))
        }
    }

    /// A signed text message. `nonce` is 24 bytes, `ciphertext` opaque (the server never
    /// decrypts); the signature covers the canonical bytes of docs/protocol.md "Canonical signing".
    /// With `groupId` it is one envelope of a group message: `group_send_message`, signed over
    /// the group id instead of `to` (docs/protocol.md "Groups").
    static func sendMessage(requestId: String, token: String, messageId: String, from: String, to: String,
                            groupId: String? = nil, timestamp: Int64, nonce: [UInt8], ciphertext: [UInt8],
                            signer: BenchIdentity) -> [UInt8] {
        let type = groupId == nil ? SendMessagePayload.type : SendMessagePayload.groupType
        let nonceText = Base64.encode(nonce)
        let ciphertextText = Base64.encode(ciphertext)
        let canonical = CanonicalSigning.signedBytes(
            messageType: type, messageId: messageId, from: from, toOrGroupId: groupId ?? to,
            timestampMillis: timestamp, nonceBase64: nonceText.utf8, ciphertextBase64: ciphertextText.utf8)
        let signature = Base64.encode(signer.signDigest(of: canonical))
        return frame(type, requestId: requestId) { w in
            privileged(&w, token: token)
            if let groupId { w.member(SendMessagePayload.groupIdKey, groupId) }
            w.member("messageId", messageId)
            w.member("from", from)
            w.member("to", to)
            w.member("msgType", "text")
            w.member("timestamp", timestamp)
            w.member("nonce", nonceText)
            w.member("ciphertext", ciphertextText)
            w.member("sig", signature)
        }
    }

    /// `from` is the recipient (us), `to` the message's sender.
    static func deliveryReceipt(requestId: String, token: String, messageId: String, from: String, to: String,
                                timestamp: Int64) -> [UInt8] {
        frame(DeliveryReceiptPayload.type, requestId: requestId) { w in
            privileged(&w, token: token)
            w.member("messageId", messageId)
            w.member("from", from)
            w.member("to", to)
            w.member("status", "delivered")
            w.member("timestamp", timestamp)
        }
    }

    /// A group owned by the sender, with `memberIds` besides it.
    static func groupCreate(requestId: String, token: String, title: String, memberIds: [String]) -> [UInt8] {
        frame(GroupCreatePayload.type, requestId: requestId) { w in
            privileged(&w, token: token)
            w.member("title", title)
            w.key("memberIds")
            w.beginArray()
            for id in memberIds { w.string(id) }
            w.endArray()
        }
    }

    /// `{"type":"ping","requestId":…,"payload":{}}`: an open frame, answered by `pong`.
    static func ping(requestId: String) -> [UInt8] {
        frame("ping", requestId: requestId) { _ in }
    }

    static func fetchPending(requestId: String, token: String, cursor: String?, limit: Int) -> [UInt8] {
        frame(FetchPendingPayload.type, requestId: requestId) { w in
            privileged(&w, token: token)
            if let cursor { w.member("cursor", cursor) }
            w.member("limit", Int64(limit))
        }
    }

    // MARK: Envelope

    /// `{"type":…,"requestId":…,"payload":{…}}`
    private static func frame(_ type: String, requestId: String, payload: (inout JSONWriter) -> Void) -> [UInt8] {
        var w = JSONWriter(capacity: 512)
        w.beginObject()
        w.member("type", type)
        w.member("requestId", requestId)
        w.key("payload")
        w.beginObject()
        payload(&w)
        w.endObject()
        w.endObject()
        return w.bytes
    }

    private static func versions(_ w: inout JSONWriter) {
        w.member("protocolVersion", Int64(1))
        w.member("cryptoVersion", Int64(1))
    }

    private static func privileged(_ w: inout JSONWriter, token: String) {
        versions(&w)
        w.member("sessionToken", token)
    }
}
