import WhisperProtocol

/// Where issued challenges wait for their proof (Redis `challenge:{id}`, TTL = the
/// challenge lifetime). `take` is atomic get-and-delete, so a challenge verifies at most
/// once even when two proofs race.
public protocol ChallengeStore {
    /// Charges `rateLimit` and, only if it is allowed, stores the challenge — atomically.
    func put(_ id: CanonicalUUID, value: [UInt8], ttlSeconds: Int64, rateLimit: RateLimitCharge,
             completion: @escaping StoreCompletion<RateLimitDecision>)
    /// The value, removed in the same step (`nil` if unknown, expired or already taken).
    func take(_ id: CanonicalUUID, completion: @escaping StoreCompletion<[UInt8]?>)
}

/// A challenge as stored: the 32 random bytes plus what `register_begin` declared, so the
/// proof must come from the same device and for the same identity that was rate limited.
///
///     bytes 0..<32   challenge
///     bytes 32..<68  deviceId (lower-case UUID text)
///     bytes 68..<86  whisperId (only for a recovery login)
public struct PendingChallenge: Sendable, Equatable {
    public static let challengeBytes = 32

    public let challenge: [UInt8]
    public let deviceId: CanonicalUUID
    public let whisperId: WhisperID?

    public init(challenge: [UInt8], deviceId: CanonicalUUID, whisperId: WhisperID?) {
        self.challenge = challenge
        self.deviceId = deviceId
        self.whisperId = whisperId
    }

    public func encoded() -> [UInt8] {
        challenge + Array(deviceId.string.utf8) + Array((whisperId?.string ?? "").utf8)
    }

    public static func decode(_ bytes: [UInt8]) -> PendingChallenge? {
        let idStart = challengeBytes + CanonicalUUID.textLength
        guard bytes.count == idStart || bytes.count == idStart + WhisperID.textLength,
              let deviceId = CanonicalUUID(String(decoding: bytes[challengeBytes..<idStart], as: UTF8.self))
        else { return nil }
        var whisperId: WhisperID?
        if bytes.count > idStart {
            guard let id = WhisperID.validate(String(decoding: bytes[idStart...], as: UTF8.self)) else { return nil }
            whisperId = id
        }
        return PendingChallenge(challenge: Array(bytes[..<challengeBytes]), deviceId: deviceId, whisperId: whisperId)
    }
}

/// What `register_challenge` tells the client.
public struct IssuedChallenge: Sendable {
    public let id: CanonicalUUID
    public let challenge: [UInt8]
    public let expiresAtMillis: Int64
}
