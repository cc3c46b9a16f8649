import WhisperProtocol

/// One encrypted, signed envelope (spec §3.5, §4; docs/client.md "Envelopes"): the cleartext
/// fields the signature covers, the box nonce and ciphertext, and the signature.
///
///     signed_bytes = "v1\n" type "\n" id "\n" from "\n" toOrGroupId "\n" timestamp "\n"
///                    base64(nonce) "\n" base64(ciphertext) "\n"
///     sig          = Ed25519(SHA-256(signed_bytes), sender's sign key)
///
/// The same value describes an envelope being sent and one received (built from the frame's
/// fields: the strict base64 the server accepts decodes and re-encodes to the same text).
public struct SealedEnvelope: Equatable, Sendable {
    public let kind: EnvelopeKind
    /// `messageId`, or `callId` for a call signal, spelled exactly as written.
    public let id: String
    public let from: WhisperID
    public let to: WhisperID
    public let timestampMillis: Int64
    public let nonce: [UInt8]
    public let ciphertext: [UInt8]
    public let signature: [UInt8]

    public init(kind: EnvelopeKind, id: String, from: WhisperID, to: WhisperID, timestampMillis: Int64,
                nonce: [UInt8], ciphertext: [UInt8], signature: [UInt8]) {
        (self.kind, self.id, self.from, self.to, self.timestampMillis) = (kind, id, from, to, timestampMillis)
        (self.nonce, self.ciphertext, self.signature) = (nonce, ciphertext, signature)
    }

    public var nonceBase64: String { Base64.encode(nonce) }
    public var ciphertextBase64: String { Base64.encode(ciphertext) }
    public var signatureBase64: String { Base64.encode(signature) }

    /// The canonical bytes, from WhisperProtocol's `CanonicalSigning` (the server's own).
    public func signedBytes() -> [UInt8] {
        Self.signedBytes(kind: kind, id: id, from: from, to: to, timestampMillis: timestampMillis,
                         nonce: nonce, ciphertext: ciphertext)
    }

    /// Whether `signature` is `signPublicKey`'s over SHA-256 of the signed bytes.
    public func hasValidSignature(signPublicKey: [UInt8]) -> Bool {
        Libsodium.ed25519Verify(signature: signature, message: Libsodium.sha256(signedBytes()), publicKey: signPublicKey)
    }

    static func signedBytes(kind: EnvelopeKind, id: String, from: WhisperID, to: WhisperID, timestampMillis: Int64,
                            nonce: [UInt8], ciphertext: [UInt8]) -> [UInt8] {
        CanonicalSigning.signedBytes(
            messageType: kind.messageType, messageId: id, from: from.string, toOrGroupId: kind.toOrGroupId(to: to),
            timestampMillis: timestampMillis,
            nonceBase64: Array(Base64.encode(nonce).utf8), ciphertextBase64: Array(Base64.encode(ciphertext).utf8))
    }
}
