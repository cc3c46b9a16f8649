import CSodium
import Foundation

/// A `send_message` as a phone builds it (docs/protocol.md "Messaging (1:1)"): random nonce and "ciphertext" (the
/// server never decrypts), signed over SHA-256 of the canonical bytes (docs/protocol.md "Canonical signing").
public struct TestMessage {
    public var messageId: String
    public var from: String
    public var to: String
    public var msgType: String
    public var timestamp: Int64
    public var nonce: String
    public var ciphertext: String
    public var extra: [String: Any]

    public init(from: String, to: String, messageId: String = UUID().uuidString.lowercased(), msgType: String = "text",
                timestamp: Int64 = TestMessage.nowMillis(), ciphertextBytes: Int = 48, extra: [String: Any] = [:]) {
        self.messageId = messageId
        self.from = from
        self.to = to
        self.msgType = msgType
        self.timestamp = timestamp
        self.nonce = Data((0..<24).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        self.ciphertext = Data((0..<ciphertextBytes).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        self.extra = extra
    }

    public static func nowMillis() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    /// docs/protocol.md "Canonical signing" canonical bytes.
    public static func signedBytes(type: String = "send_message", messageId: String, from: String, to: String,
                                   timestamp: Int64, nonce: String, ciphertext: String) -> [UInt8] {
        Array("v1\n\(type)\n\(messageId)\n\(from)\n\(to)\n\(timestamp)\n\(nonce)\n\(ciphertext)\n".utf8)
    }

    public var signedBytes: [UInt8] {
        Self.signedBytes(messageId: messageId, from: from, to: to, timestamp: timestamp, nonce: nonce, ciphertext: ciphertext)
    }

    /// The `payload` members of the frame (without session fields), signed by `key`.
    public func payload(signedBy key: TestSigningKey) -> [String: Any] {
        var payload: [String: Any] = [
            "messageId": messageId, "from": from, "to": to, "msgType": msgType, "timestamp": timestamp,
            "nonce": nonce, "ciphertext": ciphertext,
            "sig": Data(key.sign(TestSHA256.hash(signedBytes))).base64EncodedString(),
        ]
        payload.merge(extra) { $1 }
        return payload
    }
}

public enum TestSHA256 {
    public static func hash(_ bytes: [UInt8]) -> [UInt8] {
        _ = sodium_init()
        var digest = [UInt8](repeating: 0, count: 32)
        _ = crypto_hash_sha256(&digest, bytes, UInt64(bytes.count))
        return digest
    }
}

extension TestSigningKey {
    /// Whether `signature` is `publicKey`'s Ed25519 signature of `message`, checked as a
    /// receiving phone would (libsodium).
    public static func verify(signature: [UInt8], message: [UInt8], publicKey: [UInt8]) -> Bool {
        _ = sodium_init()
        guard signature.count == 64, publicKey.count == 32 else { return false }
        return crypto_sign_verify_detached(signature, message, UInt64(message.count), publicKey) == 0
    }
}

extension TestWebSocket {
    /// Sends `message` signed by `key` with the session `token`; returns the reply.
    public func send(_ message: TestMessage, signedBy key: TestSigningKey, token: String,
                     requestId: String = "send") throws -> [String: Any] {
        try request(Self.privilegedFrame("send_message", token: token, requestId: requestId,
                                         extra: message.payload(signedBy: key)))
    }

    /// `fetch_pending`; returns the reply.
    public func fetchPending(token: String, cursor: String? = nil, limit: Int? = nil) throws -> [String: Any] {
        var extra: [String: Any] = [:]
        if let cursor { extra["cursor"] = cursor }
        if let limit { extra["limit"] = limit }
        return try request(Self.privilegedFrame("fetch_pending", token: token, requestId: "fetch", extra: extra))
    }

    /// `delivery_receipt` from `from` (the recipient) for a message of `to` (its sender).
    public func receipt(messageId: String, from: String, to: String, status: String = "delivered",
                        token: String) throws -> [String: Any] {
        try request(Self.privilegedFrame("delivery_receipt", token: token, requestId: "receipt", extra: [
            "messageId": messageId, "from": from, "to": to, "status": status, "timestamp": TestMessage.nowMillis(),
        ]))
    }

    /// Reads frames until one of `type` arrives; frames of other types are returned too,
    /// in order, so a test can assert nothing unexpected came first.
    public func receive(type: String, skipped: inout [[String: Any]]) throws -> [String: Any] {
        while true {
            let frame = try receiveJSON()
            if frame.frameType == type { return frame }
            skipped.append(frame)
        }
    }
}
