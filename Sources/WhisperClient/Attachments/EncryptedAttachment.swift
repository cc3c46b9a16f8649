/// Spec §6.2: an attachment is encrypted once, under its own random key, before upload:
///
///     fileKey        = random(32)
///     fileNonce      = random(24)
///     fileCiphertext = crypto_secretbox_easy(fileBytes, fileNonce, fileKey)   (tag(16) ‖ ciphertext)
///
/// The ciphertext goes to the presigned URL; `fileNonce` and the boxed `fileKey` travel in the
/// message's `attachment` pointer (`AttachmentPointerFields`, spec §6.3).
public struct EncryptedAttachment: Equatable, Sendable {
    public let fileKey: [UInt8]
    public let fileNonce: [UInt8]
    public let ciphertext: [UInt8]

    /// Encrypts `fileBytes` under a fresh random key and nonce. `fileKey`/`fileNonce` are for
    /// test vectors only.
    public init(encrypting fileBytes: [UInt8], fileKey: [UInt8]? = nil, fileNonce: [UInt8]? = nil) throws(ClientCryptoError) {
        let key = fileKey ?? Libsodium.randomBytes(Libsodium.keyBytes)
        let nonce = fileNonce ?? Libsodium.randomBytes(Libsodium.nonceBytes)
        ciphertext = try Libsodium.secretbox(fileBytes, nonce: nonce, key: key)
        (self.fileKey, self.fileNonce) = (key, nonce)
    }

    /// The file bytes of a downloaded ciphertext, given the key and nonce from the pointer.
    public static func decrypt(_ ciphertext: [UInt8], fileKey: [UInt8], fileNonce: [UInt8]) throws(ClientCryptoError) -> [UInt8] {
        try Libsodium.secretboxOpen(ciphertext, nonce: fileNonce, key: fileKey)
    }
}
