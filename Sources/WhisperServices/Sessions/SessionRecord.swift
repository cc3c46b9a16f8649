import WhisperProtocol

/// A live session as stored (`session:{hash}` → whisperId, deviceId, platform, sign key,
/// expiry) and as cached on the socket that presented it. The identity's Ed25519 key rides
/// along (keys are immutable, docs/protocol.md "Identity and sessions"), so verifying a `send_message` needs no look-up.
public struct SessionRecord: Sendable, Equatable {
    public let hash: SessionHash
    public let whisperId: WhisperID
    public let deviceId: CanonicalUUID
    public let platform: Platform
    /// The identity's Ed25519 public key (32 bytes), proven at login.
    public let signPublicKey: [UInt8]
    /// Epoch milliseconds; the store's TTL ends the session at the same moment.
    public let expiresAtMillis: Int64

    public init(hash: SessionHash, whisperId: WhisperID, deviceId: CanonicalUUID, platform: Platform,
                signPublicKey: [UInt8], expiresAtMillis: Int64) {
        self.hash = hash
        self.whisperId = whisperId
        self.deviceId = deviceId
        self.platform = platform
        self.signPublicKey = signPublicKey
        self.expiresAtMillis = expiresAtMillis
    }

    public func isExpired(atMillis now: Int64) -> Bool { now >= expiresAtMillis }
}

/// A newly issued session: the token goes to the client exactly once.
public struct IssuedSession: Sendable {
    public let token: SessionToken
    public let record: SessionRecord
}
