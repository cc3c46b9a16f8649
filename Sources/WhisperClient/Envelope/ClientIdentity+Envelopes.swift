import WhisperProtocol

extension ClientIdentity {
    /// Encrypts `plaintext` to the recipient (spec §4: `crypto_box_easy` from this identity's
    /// encryption key to `recipientEncPublicKey` under a fresh random 24-byte nonce) and signs the
    /// envelope (spec §3.5). `from` must be this identity's Whisper ID. `nonce` is for test
    /// vectors only: a nonce must never repeat for the same pair of keys.
    public func seal(_ plaintext: [UInt8], kind: EnvelopeKind, id: String, from: WhisperID, to: WhisperID,
                     timestampMillis: Int64, recipientEncPublicKey: [UInt8],
                     nonce: [UInt8]? = nil) throws(ClientCryptoError) -> SealedEnvelope {
        let nonce = nonce ?? Libsodium.randomBytes(Libsodium.nonceBytes)
        let ciphertext = try Libsodium.box(plaintext, nonce: nonce, recipientPublicKey: recipientEncPublicKey,
                                           senderSecretKey: encSecretKey)
        let signedBytes = SealedEnvelope.signedBytes(kind: kind, id: id, from: from, to: to, timestampMillis: timestampMillis,
                                                     nonce: nonce, ciphertext: ciphertext)
        return SealedEnvelope(kind: kind, id: id, from: from, to: to, timestampMillis: timestampMillis, nonce: nonce,
                              ciphertext: ciphertext, signature: sign(signedBytes: signedBytes))
    }

    /// Verifies a received envelope's signature with the sender's sign key, then decrypts it with
    /// the sender's encryption key (spec §4.2: verify, then decrypt). A bad signature is
    /// `.badSignature` before any decryption is tried.
    public func open(_ envelope: SealedEnvelope, senderSignPublicKey: [UInt8],
                     senderEncPublicKey: [UInt8]) throws(ClientCryptoError) -> [UInt8] {
        guard envelope.hasValidSignature(signPublicKey: senderSignPublicKey) else { throw .badSignature }
        return try Libsodium.boxOpen(envelope.ciphertext, nonce: envelope.nonce, senderPublicKey: senderEncPublicKey,
                                     recipientSecretKey: encSecretKey)
    }

    /// Ed25519 over SHA-256(`signedBytes`) (spec §3.5: never over the bytes themselves).
    func sign(signedBytes: [UInt8]) -> [UInt8] {
        Libsodium.ed25519Sign(Libsodium.sha256(signedBytes), secretKey: signSecretKey)
    }
}
