extension ClientIdentity {
    /// Boxes `fileKey` to the recipient under a fresh random nonce (`nonce` for test vectors only).
    public func boxFileKey(_ fileKey: [UInt8], recipientEncPublicKey: [UInt8],
                           nonce: [UInt8]? = nil) throws(ClientCryptoError) -> FileKeyBox {
        try Libsodium.check(fileKey, Libsodium.keyBytes, "file key")
        let nonce = nonce ?? Libsodium.randomBytes(Libsodium.nonceBytes)
        return FileKeyBox(nonce: nonce, ciphertext: try Libsodium.box(fileKey, nonce: nonce, recipientPublicKey: recipientEncPublicKey,
                                                                     senderSecretKey: encSecretKey))
    }

    /// The file key of a received pointer; anything but 32 bytes inside is refused.
    public func openFileKeyBox(_ box: FileKeyBox, senderEncPublicKey: [UInt8]) throws(ClientCryptoError) -> [UInt8] {
        let fileKey = try Libsodium.boxOpen(box.ciphertext, nonce: box.nonce, senderPublicKey: senderEncPublicKey,
                                            recipientSecretKey: encSecretKey)
        try Libsodium.check(fileKey, Libsodium.keyBytes, "file key")
        return fileKey
    }
}
