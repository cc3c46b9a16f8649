import WhisperOps
import WhisperProtocol
@testable import WhisperServices
import WhisperTesting

/// In-memory stores for the use-case tests. They answer synchronously, which the services
/// must tolerate (the real stores answer later, on the loop).
final class FakeChallenges: ChallengeStore {
    var values: [CanonicalUUID: [UInt8]] = [:]
    /// The rate-limit buckets each `put` charged, and what the limit answers.
    var charged: [[RateLimitBucket]] = []
    var decision = RateLimitDecision.allowed
    func put(_ id: CanonicalUUID, value: [UInt8], ttlSeconds: Int64, rateLimit: RateLimitCharge,
             completion: @escaping StoreCompletion<RateLimitDecision>) {
        charged.append(rateLimit.buckets)
        if decision == .allowed { values[id] = value }
        completion(.success(decision))
    }
    func take(_ id: CanonicalUUID, completion: @escaping StoreCompletion<[UInt8]?>) {
        completion(.success(values.removeValue(forKey: id)))
    }
}

final class FakeSessions: SessionStore {
    var records: [SessionHash: SessionRecord] = [:]
    var notices: [RevocationNotice] = []
    /// Runs at every `revokeAll` (to see when, among other stores' steps, it came).
    var onRevoke: (() -> Void)?

    /// Each revoked identity's epoch and reason (as in Redis), and the epochs logins read.
    var revokedAt: [WhisperID: (epoch: Int64, reason: RevocationReason)] = [:]
    var epochReads: [WhisperID] = []

    func revocationEpoch(of whisperId: WhisperID, completion: @escaping StoreCompletion<Int64>) {
        epochReads.append(whisperId)
        completion(.success(revokedAt[whisperId]?.epoch ?? 0))
    }

    func createExclusive(_ session: SessionRecord, ttlSeconds: Int64, unlessRevokedAfter epoch: Int64,
                         origin: ConnectionRef, completion: @escaping StoreCompletion<ExclusiveSession>) {
        if let marker = revokedAt[session.whisperId], marker.epoch > epoch {
            return completion(.success(.refused(marker.reason)))
        }
        let revoked = records.values.filter { $0.whisperId == session.whisperId }.map(\.hash)
        for hash in revoked { records[hash] = nil }
        records[session.hash] = session
        if !revoked.isEmpty {
            notices.append(RevocationNotice(reason: .newLogin, whisperId: session.whisperId.string, origin: origin, hashes: revoked))
        }
        completion(.success(.created(revoked: revoked)))
    }
    func find(_ hash: SessionHash, completion: @escaping StoreCompletion<SessionRecord?>) {
        completion(.success(records[hash]))
    }
    func replace(_ old: SessionRecord, with new: SessionRecord, ttlSeconds: Int64, origin: ConnectionRef,
                 completion: @escaping StoreCompletion<Bool>) {
        guard records.removeValue(forKey: old.hash) != nil else { return completion(.success(false)) }
        records[new.hash] = new
        completion(.success(true))
    }
    func delete(_ session: SessionRecord, origin: ConnectionRef, completion: @escaping StoreCompletion<Bool>) {
        completion(.success(records.removeValue(forKey: session.hash) != nil))
    }
    func revokeAll(of whisperId: WhisperID, reason: RevocationReason, origin: ConnectionRef?,
                   completion: @escaping StoreCompletion<[SessionHash]>) {
        onRevoke?()
        revokedAt[whisperId] = ((revokedAt[whisperId]?.epoch ?? 0) + 1, reason)
        let revoked = records.values.filter { $0.whisperId == whisperId }.map(\.hash)
        for hash in revoked { records[hash] = nil }
        notices.append(RevocationNotice(reason: reason, whisperId: whisperId.string, origin: origin, hashes: revoked))
        completion(.success(revoked))
    }
}

final class FakeIdentities: IdentityStore {
    var users: [WhisperID: StoredIdentity] = [:]
    var logins: [DeviceLogin] = []
    /// The next `collisions` creates answer "taken", as a primary-key conflict would.
    var collisions = 0
    var candidates: [WhisperID] = []
    var failure: StoreError?

    var tokenUpdates: [DeviceLogin] = []
    func updateTokens(_ device: DeviceLogin, completion: @escaping StoreCompletion<Bool>) {
        if let failure { return completion(.failure(failure)) }
        tokenUpdates.append(device)
        completion(.success(users[device.whisperId] != nil))
    }

    func find(_ id: WhisperID, completion: @escaping StoreCompletion<StoredIdentity?>) {
        if let failure { return completion(.failure(failure)) }
        completion(.success(users[id]))
    }
    /// Runs at the start of the next `create` (then is cleared): a concurrent registration
    /// that commits first.
    var beforeCreate: (() -> Void)?
    func findBySignKey(_ signPublicKey: [UInt8], completion: @escaping StoreCompletion<WhisperID?>) {
        if let failure { return completion(.failure(failure)) }
        completion(.success(users.first { $0.value.keys.signPublicKey == signPublicKey }?.key))
    }
    func create(_ id: WhisperID, keys: IdentityKeys, device: DeviceLogin, completion: @escaping StoreCompletion<Bool>) {
        candidates.append(id)
        beforeCreate?()
        beforeCreate = nil
        let keyTaken = users.values.contains { $0.keys.signPublicKey == keys.signPublicKey }
        if collisions > 0 || users[id] != nil || keyTaken {
            collisions -= 1
            return completion(.success(false))
        }
        users[id] = StoredIdentity(keys: keys, isBanned: false)
        logins.append(device)
        completion(.success(true))
    }
    /// Runs at the start of every `recover`: what commits while the login checks the identity.
    var beforeRecover: (() -> Void)?
    func recover(_ id: WhisperID, keys: IdentityKeys, device: DeviceLogin, completion: @escaping StoreCompletion<RecoveryCheck>) {
        if let failure { return completion(.failure(failure)) }
        beforeRecover?()
        guard let identity = users[id] else { return completion(.success(.unknownIdentity)) }
        guard identity.keys == keys else { return completion(.success(.keyMismatch)) }
        guard !identity.isBanned else { return completion(.success(.banned)) }
        logins.append(device)
        completion(.success(.recorded))
    }
}

final class FakeRateLimits: RateLimitStore {
    var charged: [[RateLimitBucket]] = []
    var decision = RateLimitDecision.allowed
    func hit(_ buckets: [RateLimitBucket], nonce: String, completion: @escaping StoreCompletion<RateLimitDecision>) {
        charged.append(buckets)
        completion(.success(decision))
    }
}

/// A deterministic byte stream (SplitMix64), so minted ids and tokens are reproducible.
final class SeededRandom: RandomSource, @unchecked Sendable {
    private var generator: SplitMix64
    init(seed: UInt64) { generator = SplitMix64(seed: seed) }
    func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
    }
}

/// A service over fakes, plus a signing key that plays the client.
struct AuthHarness {
    let challenges = FakeChallenges()
    let sessions = FakeSessions()
    let identities = FakeIdentities()
    let rateLimits = FakeRateLimits()
    let metrics = WhisperMetrics(registry: MetricsRegistry(), includeProcessMetrics: false)
    let service: AuthService
    let client = ClientRef(ip: "192.0.2.7", connection: ConnectionRef(node: "n1", connection: 9))
    static let now: Int64 = 1_763_820_000_000

    init(maxMintAttempts: Int = 8, random: RandomSource = SeededRandom(seed: 42)) {
        let limiter = RateLimiter(limits: .defaults, store: rateLimits, random: random, metrics: metrics)
        service = AuthService(
            limits: Self.limits(maxMintAttempts: maxMintAttempts),
            challenges: challenges, sessions: sessions, identities: identities, rateLimiter: limiter, random: random,
            log: Log(level: .error, sink: MemoryLogSink()), metrics: metrics, now: { AuthHarness.now })
    }

    static func limits(maxMintAttempts: Int) -> Limits {
        var limits = Limits.default
        limits.maxWhisperIDMintAttempts = maxMintAttempts
        return limits
    }

    func begin(_ request: RegisterBeginPayload) -> Result<IssuedChallenge, ServiceError> {
        var outcome: Result<IssuedChallenge, ServiceError>?
        service.begin(request, client: client) { outcome = $0 }
        return outcome ?? .failure(.internalFailure("no completion"))
    }

    func prove(_ request: RegisterProofPayload) -> Result<AuthService.Login, ServiceError> {
        var outcome: Result<AuthService.Login, ServiceError>?
        service.prove(request, client: client) { outcome = $0 }
        return outcome ?? .failure(.internalFailure("no completion"))
    }

    /// Begin + a correctly signed proof for `key`.
    func login(key: TestKey, deviceId: CanonicalUUID = .random(), whisperId: WhisperID? = nil,
               encKey: [UInt8] = [UInt8](repeating: 9, count: 32)) -> Result<AuthService.Login, ServiceError> {
        let begin = RegisterBeginPayload(whisperId: whisperId, deviceId: deviceId, platform: .ios)
        guard case .success(let challenge) = self.begin(begin) else { return .failure(.internalFailure("begin failed")) }
        return prove(proof(for: challenge, key: key, deviceId: deviceId, whisperId: whisperId, encKey: encKey))
    }

    func proof(for challenge: IssuedChallenge, key: TestKey, deviceId: CanonicalUUID, whisperId: WhisperID?,
               encKey: [UInt8] = [UInt8](repeating: 9, count: 32)) -> RegisterProofPayload {
        RegisterProofPayload(challengeId: challenge.id, deviceId: deviceId, platform: .ios, whisperId: whisperId,
                             encPublicKey: encKey, signPublicKey: key.publicKey,
                             signature: key.sign(challenge.challenge))
    }
}

struct TestKey {
    let publicKey: [UInt8]
    let seed: [UInt8]
    init(seed: UInt8) {
        self.seed = [UInt8](repeating: seed, count: 32)
        publicKey = Fixture.sign(seed: self.seed, message: []).publicKey
    }
    func sign(_ message: [UInt8]) -> [UInt8] { Fixture.sign(seed: seed, message: message).signature }
}
