import WhisperProtocol

/// The two public keys of an identity (immutable in this protocol version, docs/protocol.md "Identity and sessions").
public struct IdentityKeys: Sendable, Equatable {
    public let encPublicKey: [UInt8]
    public let signPublicKey: [UInt8]

    public init(encPublicKey: [UInt8], signPublicKey: [UInt8]) {
        self.encPublicKey = encPublicKey
        self.signPublicKey = signPublicKey
    }
}

/// A registered identity as the login path needs it.
public struct StoredIdentity: Sendable, Equatable {
    public let keys: IdentityKeys
    /// A ban row whose `until` is NULL or in the future.
    public let isBanned: Bool

    public init(keys: IdentityKeys, isBanned: Bool) {
        self.keys = keys
        self.isBanned = isBanned
    }
}

/// What a recovery login found, checked in this order (so a ban is only revealed to the
/// holder of the keys).
public enum RecoveryCheck: Sendable, Equatable {
    case unknownIdentity
    case keyMismatch
    case banned
    /// Keys match, no ban: the device row is written.
    case recorded
}

/// One device's login, recorded in the `devices` table (upsert).
public struct DeviceLogin: Sendable, Equatable {
    public init(whisperId: WhisperID, deviceId: CanonicalUUID, platform: Platform, pushToken: String?,
                voipToken: String?) {
        self.whisperId = whisperId
        self.deviceId = deviceId
        self.platform = platform
        self.pushToken = pushToken
        self.voipToken = voipToken
    }

    public let whisperId: WhisperID
    public let deviceId: CanonicalUUID
    public let platform: Platform
    /// `nil` keeps the token stored earlier (tokens change through `update_tokens`).
    public let pushToken: String?
    public let voipToken: String?
}

/// Identities and devices (PostgreSQL `users`, `devices`, `bans`, `deleted_identities`), off the event loops.
public protocol IdentityStore {
    func find(_ id: WhisperID, completion: @escaping StoreCompletion<StoredIdentity?>)
    /// The identity a seed-only login reaches with this Ed25519 key, or `nil` for a key never
    /// seen (at most one identity per key is seed-recoverable, docs/protocol.md "Login").
    func findBySignKey(_ signPublicKey: [UInt8], completion: @escaping StoreCompletion<WhisperID?>)
    /// Inserts a new identity and its first device in one step; `false` (nothing written)
    /// when the id is taken (or reserved by a ban row or a deleted identity) or when an
    /// identity with this signing key exists already (a concurrent registration of the same
    /// keys won), so the caller looks the keys up again before minting another id.
    func create(_ id: WhisperID, keys: IdentityKeys, device: DeviceLogin, completion: @escaping StoreCompletion<Bool>)
    /// The device's platform and push tokens (`nil` keeps a stored token); `false` when the
    /// device row is gone.
    func updateTokens(_ device: DeviceLogin, completion: @escaping StoreCompletion<Bool>)
    /// A recovery login in one step: the identity must exist with exactly these keys and
    /// no ban in force; only then is the device row upserted (`.recorded`) and every other
    /// device of the identity forgets its push tokens (single active device: nothing may wake
    /// a phone that has been logged out).
    func recover(_ id: WhisperID, keys: IdentityKeys, device: DeviceLogin, completion: @escaping StoreCompletion<RecoveryCheck>)
}
