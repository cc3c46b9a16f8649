/// Spec §14.1: the contacts list is one secretbox under the seed-derived `contactsKey`,
///
///     nonce      = random(24)
///     ciphertext = crypto_secretbox_easy(contactsJsonBytes, nonce, contactsKey)
///
/// uploaded as `PUT /backup/contacts {nonce, ciphertext, …}` (both base64). The server cannot
/// read it; the seed phrase alone recovers it on a new device.
public struct EncryptedContactsBackup: Equatable, Sendable {
    public let nonce: [UInt8]
    public let ciphertext: [UInt8]

    public init(nonce: [UInt8], ciphertext: [UInt8]) {
        (self.nonce, self.ciphertext) = (nonce, ciphertext)
    }
}
