/// The body of `PUT /backup/contacts` (docs/protocol.md "Contacts backup"):
///
///     {"nonce":"base64(24)","ciphertext":"base64","cryptoVersion":1,"protocolVersion":1}
///
/// The blob is opaque to the server (a secretbox under a key only the seed phrase derives),
/// so only its shape is checked: the nonce is exactly 24 bytes, the ciphertext 1 byte at least
/// (a secretbox is never empty) and at most `Limits.maxContactsBackupBytes` decoded. Both are
/// kept as the client's base64 text, which is what a download returns.
public struct ContactsBackupPayload: Sendable, Equatable {
    public static let allowedKeys: Set<String> = [ProtocolVersion.protocolVersionKey, ProtocolVersion.cryptoVersionKey,
                                                  "nonce", "ciphertext"]
    public static let nonceBytes = 24

    public let nonceText: String
    public let ciphertextText: String
    /// Decoded ciphertext length (`contact_backups.size_bytes`).
    public let sizeBytes: Int

    /// The largest body a valid upload can have, for the route's `Content-Length` cap: the
    /// base64 of a full blob and of the nonce plus room for the member names and versions.
    public static func maxBodyBytes(limits: Limits) -> Int {
        Base64.encodedLength(forByteCount: limits.maxContactsBackupBytes) + Base64.encodedLength(forByteCount: nonceBytes) + 256
    }

    /// Parses and validates an HTTP body. `tooLarge` (413) is the only error that is not 400.
    public init(body: [UInt8], limits: Limits) throws(PayloadError) {
        let payload = try JSONObject(httpBody: body, maxBytes: Self.maxBodyBytes(limits: limits))
        try payload.rejectUnknownKeys(allowed: Self.allowedKeys)
        try ProtocolVersion.check(payload)
        _ = try payload.requireBase64("nonce", exactByteCount: Self.nonceBytes)
        nonceText = try payload.requireString("nonce")
        sizeBytes = try payload.requireBase64Length("ciphertext", maxByteCount: limits.maxContactsBackupBytes)
        guard sizeBytes >= 1 else { throw .outOfRange(field: "ciphertext") }
        ciphertextText = try payload.requireString("ciphertext")
    }
}
