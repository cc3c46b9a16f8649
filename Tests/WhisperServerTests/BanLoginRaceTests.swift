import Foundation
import Testing
import WhisperOps
import WhisperProtocol
import WhisperRuntime
@testable import WhisperServer
import WhisperServices
import WhisperStorage
import WhisperTesting
@testable import WhisperStores

/// A login cannot outrun a ban or an account deletion (docs/security.md "Bans and logins"):
/// the login's identity check ran before the ban committed, the ban's revocation ran to
/// completion, and only then does the login store its session — over the real Redis stores
/// and scripts. The pause is deterministic: the identity store answers its (now stale)
/// check only after the ban has finished.
@Suite(.serialized) struct BanLoginRaceTests {
    @Test func login_checkedBeforeTheBan_storingAfterItsRevocation_isRefusedUSER_BANNED_andLeavesNoSession() async throws {
        let race = try await LoginRace.start()
        defer { race.stop() }
        // An earlier session of the identity, which the ban kills.
        #expect(await race.login().isSuccess)
        #expect(try race.storedSessions() == 1)

        let raced = await race.login { whisperId, resume in
            race.identities.banned = true  // the bans row commits…
            race.auth.revokeAll(of: whisperId, reason: .banned) { _ in resume() }  // …then its revocation runs
        }
        #expect(raced.failure == .banned, "\(raced)")
        #expect(try race.storedSessions() == 0)

        // The marker refuses only logins that read an older epoch: after an unban the
        // identity logs in again at once.
        race.identities.banned = false
        #expect(await race.login().isSuccess)
    }

    @Test func login_checkedBeforeTheDeletion_storingAfterItsRevocation_isRefusedAUTH_FAILED() async throws {
        let race = try await LoginRace.start()
        defer { race.stop() }
        let raced = await race.login { whisperId, resume in
            race.identities.deleted = true  // the deletion's transaction commits…
            race.sessions.revokeAll(of: whisperId, reason: .accountDeleted, origin: nil) { _ in resume() }  // …then step 5
        }
        #expect(raced.failure == .authFailed(.unknownIdentity), "\(raced)")
        #expect(try race.storedSessions() == 0)
    }
}

/// AuthService on its own loop over the real Redis challenge and session stores, with an
/// in-memory identity store holding one identity that can pause a login after its check.
private final class LoginRace: @unchecked Sendable {
    let group: EventLoopGroup
    let redis: RedisClient
    let keys: RedisKeys
    let sessions: RedisSessionStore
    let identities = PausingIdentities()
    let auth: AuthService
    let key = TestSigningKey.random()
    let whisperId = WhisperID.random()
    let encKey = [UInt8](repeating: 7, count: 32)

    private init(group: EventLoopGroup, redis: RedisClient) {
        self.group = group
        self.redis = redis
        keys = RedisKeys(prefix: TestEnvironment.uniqueName("race") + ":")
        sessions = RedisSessionStore(redis: redis, keys: keys)
        auth = AuthService(limits: .default, challenges: RedisChallengeStore(redis: redis, keys: keys), sessions: sessions,
                           identities: identities,
                           rateLimiter: RateLimiter(limits: .defaults, store: RedisRateLimitStore(redis: redis, keys: keys)),
                           log: Log(level: .error, sink: MemoryLogSink()),
                           now: { Int64(Date().timeIntervalSince1970 * 1000) })
        identities.identity = (whisperId, IdentityKeys(encPublicKey: encKey, signPublicKey: key.publicKey))
    }

    static func start() async throws -> LoginRace {
        let group = try EventLoopGroup(threads: 1)
        group.start()
        let redis = try RedisClient(url: try TestEnvironment.redisURL, loop: group.loops[0], log: TestEnvironment.log)
        redis.start()
        guard await eventually(within: 10, { redis.isConnected }) else {
            group.shutdown()
            throw TestSocket.Failure.io("no Redis")
        }
        return LoginRace(group: group, redis: redis)
    }

    func stop() {
        redis.close()
        group.shutdown()
    }

    /// `register_begin` + a signed `register_proof` for the identity, on the loop. With
    /// `between`, the identity store's check is answered only after `between` resumes.
    func login(between: (@Sendable (WhisperID, @escaping () -> Void) -> Void)? = nil) async -> Result<AuthService.Login, ServiceError> {
        await withCheckedContinuation { (continuation: CheckedContinuation<Result<AuthService.Login, ServiceError>, Never>) in
            group.loops[0].execute { [self] in
                identities.pause = between
                let client = ClientRef(ip: "192.0.2.9", connection: ConnectionRef(node: "race", connection: 1))
                let deviceId = CanonicalUUID.random()
                auth.begin(RegisterBeginPayload(whisperId: whisperId, deviceId: deviceId, platform: .ios), client: client) { [self] begun in
                    guard case .success(let challenge) = begun else {
                        return continuation.resume(returning: .failure(.internalFailure("begin: \(begun)")))
                    }
                    let proof = RegisterProofPayload(challengeId: challenge.id, deviceId: deviceId, platform: .ios,
                                                     whisperId: whisperId, encPublicKey: encKey,
                                                     signPublicKey: key.publicKey, signature: key.sign(challenge.challenge))
                    auth.prove(proof, client: client) { continuation.resume(returning: $0) }
                }
            }
        }
    }

    /// `session:` keys stored under this test's prefix.
    func storedSessions() throws -> Int {
        try TestRedis(url: try TestEnvironment.redisURL).keys(prefix: keys.sessionPrefix).count
    }
}

/// One identity; `recover` checks it at once and, when `pause` is set, answers that check
/// only when `pause` resumes (the ban or deletion runs in between).
private final class PausingIdentities: IdentityStore {
    var identity: (WhisperID, IdentityKeys)?
    var banned = false
    var deleted = false
    var pause: (@Sendable (WhisperID, @escaping () -> Void) -> Void)?

    func find(_ id: WhisperID, completion: @escaping StoreCompletion<StoredIdentity?>) {
        completion(.success(identity.flatMap { $0.0 == id && !deleted ? StoredIdentity(keys: $0.1, isBanned: banned) : nil }))
    }
    func findBySignKey(_ signPublicKey: [UInt8], completion: @escaping StoreCompletion<WhisperID?>) {
        completion(.success(identity.flatMap { $0.1.signPublicKey == signPublicKey && !deleted ? $0.0 : nil }))
    }
    func create(_ id: WhisperID, keys: IdentityKeys, device: DeviceLogin, completion: @escaping StoreCompletion<Bool>) {
        completion(.success(false))
    }
    func updateTokens(_ device: DeviceLogin, completion: @escaping StoreCompletion<Bool>) {
        completion(.success(true))
    }
    func recover(_ id: WhisperID, keys: IdentityKeys, device: DeviceLogin, completion: @escaping StoreCompletion<RecoveryCheck>) {
        let check: RecoveryCheck
        if let identity, identity.0 == id, !deleted {
            check = identity.1 != keys ? .keyMismatch : banned ? .banned : .recorded
        } else {
            check = .unknownIdentity
        }
        guard let pause else { return completion(.success(check)) }
        self.pause = nil
        pause(id) { completion(.success(check)) }
    }
}

private extension Result {
    var isSuccess: Bool { if case .success = self { true } else { false } }
    var failure: Failure? { if case .failure(let error) = self { error } else { nil } }
}
