extension ClientIdentity {
    /// Encrypts the contacts JSON (spec §14.1 schema) under a fresh random nonce (`nonce` for
    /// test vectors only).
    public func sealContactsBackup(_ contactsJSON: [UInt8], nonce: [UInt8]? = nil) throws(ClientCryptoError) -> EncryptedContactsBackup {
        let nonce = nonce ?? Libsodium.randomBytes(Libsodium.nonceBytes)
        return EncryptedContactsBackup(nonce: nonce, ciphertext: try Libsodium.secretbox(contactsJSON, nonce: nonce, key: contactsKey))
    }

    /// The contacts JSON of a downloaded backup, or `.decryptionFailed` (another identity's
    /// blob, or tampered bytes).
    public func openContactsBackup(_ backup: EncryptedContactsBackup) throws(ClientCryptoError) -> [UInt8] {
        try Libsodium.secretboxOpen(backup.ciphertext, nonce: backup.nonce, key: contactsKey)
    }
}
