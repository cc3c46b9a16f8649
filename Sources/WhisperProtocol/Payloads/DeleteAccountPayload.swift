/// `delete_account` (docs/protocol.md "delete_account → account_deleted"), client → server,
/// privileged:
///
///     {"protocolVersion":1,"cryptoVersion":1,"sessionToken":"…",
///      "whisperId":"WSP-…","timestamp":<ms>,"sig":"base64(64)"}
///
/// The session alone is not enough to delete an identity: `sig` is Ed25519 by the identity's
/// signing key over SHA-256 of `signedBytes()`, and `timestamp` must be within ±10 min of
/// server time, so a captured frame cannot be replayed later. This type checks shape and
/// sizes (`INVALID_PAYLOAD`); the account deletion service checks the rest.
public struct DeleteAccountPayload: Sendable, Equatable {
    public static let type = "delete_account"
    public static let signatureBytes = 64
    public static let allowedKeys: Set<String> = PrivilegedPayload.commonKeys.union(["whisperId", "timestamp", "sig"])

    public let whisperId: WhisperID
    public let timestamp: Int64
    public let signature: [UInt8]

    public init(whisperId: WhisperID, timestamp: Int64, signature: [UInt8]) {
        self.whisperId = whisperId
        self.timestamp = timestamp
        self.signature = signature
    }

    public init(parsing payload: some JSONFieldSource) throws(PayloadError) {
        try payload.rejectUnknownKeys(allowed: Self.allowedKeys)
        whisperId = try payload.requireWhisperID("whisperId")
        timestamp = try payload.requireTimestamp("timestamp")
        signature = try payload.requireBase64("sig", exactByteCount: Self.signatureBytes)
    }

    /// The bytes the signature covers (docs/protocol.md "Canonical signing"), UTF-8:
    ///
    ///     "v1\n" "delete_account\n" whisperId "\n" timestamp "\n"
    ///
    /// with the timestamp in decimal. Another frame's signature can never verify here: every
    /// signed frame names its own type on the second line.
    public static func signedBytes(whisperId: WhisperID, timestampMillis: Int64) -> [UInt8] {
        var bytes = Array(CanonicalSigning.version.utf8)
        bytes.append(ASCII.lineFeed)
        for field in [type, whisperId.string] {
            bytes.append(contentsOf: field.utf8)
            bytes.append(ASCII.lineFeed)
        }
        appendDecimal(timestampMillis, to: &bytes)
        bytes.append(ASCII.lineFeed)
        return bytes
    }

    public func signedBytes() -> [UInt8] { Self.signedBytes(whisperId: whisperId, timestampMillis: timestamp) }
}
