import WhisperProtocol

/// The JSON text of every frame the client sends (docs/protocol.md), member order as documented.
enum ClientFrames {
    static func registerBegin(requestId: String, deviceId: String, platform: String, whisperId: WhisperID?) -> [UInt8] {
        frame("register_begin", requestId: requestId) { w in
            versions(&w)
            w.member("deviceId", deviceId)
            w.member("platform", platform)
            if let whisperId { w.member("whisperId", whisperId.string) }
        }
    }

    static func registerProof(requestId: String, challengeId: String, deviceId: String, platform: String,
                              whisperId: WhisperID?, identity: ClientIdentity, signature: [UInt8]) -> [UInt8] {
        frame("register_proof", requestId: requestId) { w in
            versions(&w)
            w.member("challengeId", challengeId)
            w.member("deviceId", deviceId)
            w.member("platform", platform)
            if let whisperId { w.member("whisperId", whisperId.string) }
            w.member("encPublicKey", Base64.encode(identity.encPublicKey))
            w.member("signPublicKey", Base64.encode(identity.signPublicKey))
            w.member("signature", Base64.encode(signature))
        }
    }

    static func fetchPending(requestId: String, token: String, cursor: String?, limit: Int) -> [UInt8] {
        frame("fetch_pending", requestId: requestId) { w in
            privileged(&w, token: token)
            if let cursor { w.member("cursor", cursor) }
            w.member("limit", Int64(limit))
        }
    }

    static func deliveryReceipt(requestId: String, token: String, messageId: String, from: WhisperID, to: WhisperID,
                                status: ReceiptStatus, timestamp: Int64) -> [UInt8] {
        frame("delivery_receipt", requestId: requestId) { w in
            privileged(&w, token: token)
            w.member("messageId", messageId)
            w.member("from", from.string)
            w.member("to", to.string)
            w.member(ReceiptStatus.key, status.rawValue)
            w.member("timestamp", timestamp)
        }
    }

    /// `call_initiate`, `call_answer`, `call_ice_candidate`, `call_end` (docs/protocol.md
    /// "Call frames"): the envelope's fields, `isVideo` on an offer only.
    static func callSignal(_ envelope: SealedEnvelope, kind: CallSignalKind, isVideo: Bool?, requestId: String,
                           token: String) -> [UInt8] {
        privileged(kind.rawValue, requestId: requestId, token: token) { w in
            w.member("callId", envelope.id)
            w.member("from", envelope.from.string)
            w.member("to", envelope.to.string)
            if let isVideo { w.member(CallSignalPayload.isVideoKey, isVideo) }
            w.member("timestamp", envelope.timestampMillis)
            w.member("nonce", envelope.nonceBase64)
            w.member("ciphertext", envelope.ciphertextBase64)
            w.member("sig", envelope.signatureBase64)
        }
    }

    /// `logout`, `session_refresh`: nothing but the privileged members.
    static func bare(_ type: String, requestId: String, token: String) -> [UInt8] {
        privileged(type, requestId: requestId, token: token) { _ in }
    }

    /// A privileged frame: versions, token, then `members`.
    static func privileged(_ type: String, requestId: String, token: String, _ members: (inout JSONWriter) -> Void) -> [UInt8] {
        frame(type, requestId: requestId) { w in
            privileged(&w, token: token)
            members(&w)
        }
    }

    /// The envelope is the protocol module's own (`OutboundFrame`, used for the server's frames too).
    private static func frame(_ type: String, requestId: String, payload: (inout JSONWriter) -> Void) -> [UInt8] {
        OutboundFrame.encode(type: type, requestId: requestId, capacity: 512, payload: payload)
    }

    private static func versions(_ w: inout JSONWriter) {
        w.member(ProtocolVersion.protocolVersionKey, ProtocolVersion.protocolVersion)
        w.member(ProtocolVersion.cryptoVersionKey, ProtocolVersion.cryptoVersion)
    }

    private static func privileged(_ w: inout JSONWriter, token: String) {
        versions(&w)
        w.member(PrivilegedPayload.sessionTokenKey, token)
    }
}
