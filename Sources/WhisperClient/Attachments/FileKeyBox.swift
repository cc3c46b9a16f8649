/// Spec §6.3: the 32-byte `fileKey` boxed to one recipient,
///
///     fileKeyBox = { nonce: keyNonce(24), ciphertext: crypto_box_easy(fileKey, keyNonce, recipientEncPublicKey, senderEncSecretKey) }
///
/// (48 bytes of ciphertext). In a group, each member's envelope carries its own box.
public struct FileKeyBox: Equatable, Sendable {
    public let nonce: [UInt8]
    public let ciphertext: [UInt8]

    public init(nonce: [UInt8], ciphertext: [UInt8]) {
        (self.nonce, self.ciphertext) = (nonce, ciphertext)
    }
}
