import WhisperProtocol

/// A contact's two public keys as `GET /users/{whisperId}/keys` returns them.
public struct ContactKeys: Equatable, Sendable {
    public let encPublicKey: [UInt8]
    public let signPublicKey: [UInt8]
    /// `active` or `banned`.
    public let status: String

    public init(encPublicKey: [UInt8], signPublicKey: [UInt8], status: String = "active") {
        (self.encPublicKey, self.signPublicKey, self.status) = (encPublicKey, signPublicKey, status)
    }

    /// Whether `other` holds the same keys (status aside).
    public func sameKeys(as other: ContactKeys) -> Bool {
        encPublicKey == other.encPublicKey && signPublicKey == other.signPublicKey
    }

    /// From a key-lookup body or a pinned entry; nil unless both keys are 32 bytes of base64.
    init?(json: JSONValue) {
        guard let enc = json["encPublicKey"]?.stringValue.flatMap(Base64.decode), enc.count == Libsodium.keyBytes,
              let sign = json["signPublicKey"]?.stringValue.flatMap(Base64.decode), sign.count == Libsodium.keyBytes
        else { return nil }
        self.init(encPublicKey: enc, signPublicKey: sign, status: json["status"]?.stringValue ?? "active")
    }
}
