/// The bytes a message or call signature covers (docs/protocol.md "Canonical signing", docs/protocol.md "Messaging (1:1)"):
///
///     "v1\n" type "\n" messageId "\n" from "\n" toOrGroupId "\n" timestamp "\n" nonce "\n" ciphertext "\n"
///
/// UTF-8, the timestamp as a decimal integer (milliseconds), nonce and ciphertext as the base64 text
/// the sender sent. The signature is Ed25519 over SHA-256 of these bytes. Fields are used exactly as
/// received (no case folding): the signer signed what it sent.
public enum CanonicalSigning {
    public static let version = "v1"

    /// The nonce and ciphertext are the bytes of their base64 text (on the server, a frame's own
    /// bytes: it never makes strings of them).
    public static func signedBytes(
        messageType: String,
        messageId: String,
        from: String,
        toOrGroupId: String,
        timestampMillis: Int64,
        nonceBase64: some Collection<UInt8>,
        ciphertextBase64: some Collection<UInt8>
    ) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(
            3 + messageType.utf8.count + messageId.utf8.count + from.utf8.count + toOrGroupId.utf8.count
                + nonceBase64.count + ciphertextBase64.count + 7 + 20
        )
        let newline = ASCII.lineFeed
        bytes.append(contentsOf: version.utf8)
        bytes.append(newline)
        for field in [messageType, messageId, from, toOrGroupId] {
            bytes.append(contentsOf: field.utf8)
            bytes.append(newline)
        }
        appendDecimal(timestampMillis, to: &bytes)
        bytes.append(newline)
        bytes.append(contentsOf: nonceBase64)
        bytes.append(newline)
        bytes.append(contentsOf: ciphertextBase64)
        bytes.append(newline)
        return bytes
    }
}
