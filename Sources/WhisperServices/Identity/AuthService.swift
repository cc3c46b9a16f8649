import WhisperOps
import WhisperProtocol

/// Identity and sessions (docs/protocol.md "Identity and sessions"): `register_begin`, `register_proof`,
/// and — in `AuthService+Sessions` — session look-up, refresh, logout and revocation.
///
/// One instance per event loop (its stores use that loop's Redis connection); every
/// completion runs on that loop.
///
/// `register_proof`, top to bottom:
/// 1. take the challenge (atomic get-and-delete: it is spent even if the proof fails, so
///    one challenge allows one attempt) — unknown, expired or used → `AUTH_FAILED`;
/// 2. it must have been issued for this deviceId and whisperId → else `AUTH_FAILED`;
/// 3. Ed25519 over the 32 raw challenge bytes with `signPublicKey` → else `AUTH_FAILED`;
/// 4. recovery (whisperId given): first the identity's revocation epoch is read (its own
///    Redis slot), then the identity must exist with both keys equal → else
///    `AUTH_FAILED` (one message for both, so existence does not leak); then the ban check
///    → `USER_BANNED`. No whisperId (the seed phrase alone): the identity holding this
///    signing key, if any, goes through the same recovery check (contract §15); keys never
///    seen mint ids until one is free (`users` primary key), each candidate's epoch read
///    before its insert — a registration that loses to a concurrent one with the same keys
///    (the unique signing key) logs into the winner;
/// 5. upsert the device row (platform, push tokens, last active) — in the same database
///    statement as step 4 (one round trip per login);
/// 6. create the session and, in the same store call, kill every other session of the
///    identity and announce it to all nodes (single active device) — unless a ban or an
///    account deletion revoked the identity's sessions after step 4 read its revocation
///    epoch: its check in step 4 may have run before the ban committed, so the login is
///    refused as step 4 would refuse it now (`USER_BANNED`, or `AUTH_FAILED` after a deletion).
public final class AuthService {
    /// A successful `register_proof`.
    public struct Login: Sendable {
        public let session: IssuedSession
        public let isNewIdentity: Bool
        /// Other sessions of the identity that this login killed.
        public let revokedSessions: Int
    }

    public typealias Completion<T> = (Result<T, ServiceError>) -> Void

    /// Challenge and session TTLs, mint attempts.
    let limits: Limits
    let challenges: ChallengeStore
    let sessions: SessionStore
    let identities: IdentityStore
    let rateLimiter: RateLimiter
    let random: RandomSource
    let now: () -> Int64
    let log: Log
    /// Times every proof's verify into `whisper_ed25519_verify_seconds` (logins are rare
    /// next to messages, so no sampling here).
    let verifier: SignatureVerifier

    public init(limits: Limits, challenges: ChallengeStore, sessions: SessionStore, identities: IdentityStore,
                rateLimiter: RateLimiter, random: RandomSource = SodiumRandom(), log: Log,
                metrics: WhisperMetrics? = nil, now: @escaping () -> Int64) {
        self.limits = limits
        self.challenges = challenges
        self.sessions = sessions
        self.identities = identities
        self.rateLimiter = rateLimiter
        self.random = random
        self.now = now
        self.log = log
        self.verifier = SignatureVerifier(histogram: metrics?.ed25519Verify, sampleEvery: 1)
    }

    // MARK: register_begin

    /// Charges one REGISTER hit to the client's IP and, for a recovery login, to the
    /// claimed whisperId, and issues a challenge of 32 random bytes — one store call, which
    /// stores the challenge only once the hit was allowed.
    public func begin(_ request: RegisterBeginPayload, client: ClientRef,
                      completion: @escaping Completion<IssuedChallenge>) {
        var subjects: [RateLimitSubject] = [.ip(client.ip)]
        if let whisperId = request.whisperId { subjects.append(.identity(whisperId.string)) }
        var generator = RandomSourceGenerator(random)
        let id = CanonicalUUID.random(using: &generator)
        let pending = PendingChallenge(challenge: random.bytes(PendingChallenge.challengeBytes),
                                       deviceId: request.deviceId, whisperId: request.whisperId)
        let expiresAt = now() + limits.challengeTTLSeconds * 1000
        challenges.put(id, value: pending.encoded(), ttlSeconds: limits.challengeTTLSeconds,
                       rateLimit: rateLimiter.charge(.register, subjects: subjects)) { [self] result in
            switch result {
            case .success(.allowed):
                completion(.success(IssuedChallenge(id: id, challenge: pending.challenge, expiresAtMillis: expiresAt)))
            case .success(.limited(let retryAfterMs)):
                rateLimiter.refused(.register)
                completion(.failure(.rateLimited(retryAfterMs: max(1, retryAfterMs))))
            case .failure(let error):
                completion(.failure(.storage(error)))
            }
        }
    }

    // MARK: register_proof

    public func prove(_ request: RegisterProofPayload, client: ClientRef, completion: @escaping Completion<Login>) {
        challenges.take(request.challengeId) { [self] result in
            switch result {
            case .failure(let error):
                completion(.failure(.storage(error)))
            case .success(let taken):
                if let failure = check(request, against: taken.flatMap(PendingChallenge.decode)) {
                    return fail(.authFailed(failure), request, completion)
                }
                let login = PendingLogin(request: request, client: client,
                                         keys: IdentityKeys(encPublicKey: request.encPublicKey,
                                                            signPublicKey: request.signPublicKey))
                if let whisperId = request.whisperId {
                    recover(whisperId, login, completion)
                } else {
                    recoverBySeed(login, attempt: 1, completion)
                }
            }
        }
    }

    /// Steps 1–3: challenge present, bound to this device and identity, signature valid.
    func check(_ request: RegisterProofPayload, against pending: PendingChallenge?) -> AuthFailure? {
        guard let pending else { return .challengeUnknown }
        guard pending.deviceId == request.deviceId, pending.whisperId == request.whisperId else {
            return .challengeMismatch
        }
        guard verifier.verify(signature: request.signature, message: pending.challenge, publicKey: request.signPublicKey)
        else { return .badSignature }
        return nil
    }

    /// Recovery login: the identity's revocation epoch read, then same keys as stored, not
    /// banned — checked, and the device row written, in one store step.
    private func recover(_ whisperId: WhisperID, _ login: PendingLogin, _ completion: @escaping Completion<Login>) {
        withEpoch(of: whisperId, completion) { [self] epoch in
            identities.recover(whisperId, keys: login.keys, device: Self.device(whisperId, login.request)) { [self] result in
                switch result {
                case .failure(let error): completion(.failure(.storage(error)))
                case .success(.unknownIdentity): fail(.authFailed(.unknownIdentity), login.request, completion)
                case .success(.keyMismatch): fail(.authFailed(.keyMismatch), login.request, completion)
                case .success(.banned): fail(.banned, login.request, completion)
                case .success(.recorded): openSession(whisperId, isNew: false, epoch: epoch, login, completion)
                }
            }
        }
    }

    /// The identity's revocation epoch, read before its identity checks (`SessionStore.createExclusive`).
    private func withEpoch(of whisperId: WhisperID, _ completion: @escaping Completion<Login>,
                           then next: @escaping (Int64) -> Void) {
        sessions.revocationEpoch(of: whisperId) { result in
            switch result {
            case .failure(let error): completion(.failure(.storage(error)))
            case .success(let epoch): next(epoch)
            }
        }
    }

    /// Seed-only login: keys that already belong to an identity log it in exactly as if its
    /// whisperId had been given (a signing key whose identity has another encryption key is
    /// `AUTH_FAILED`); keys never seen register a new identity.
    private func recoverBySeed(_ login: PendingLogin, attempt: Int, _ completion: @escaping Completion<Login>) {
        identities.findBySignKey(login.keys.signPublicKey) { [self] result in
            switch result {
            case .failure(let error): completion(.failure(.storage(error)))
            case .success(let owner?): recover(owner, login, completion)
            case .success(nil): register(login, attempt: attempt, completion)
            }
        }
    }

    /// New identity: mint, insert. Nothing inserted means a taken id or a concurrent
    /// registration of the same keys that won: look the keys up again (the winner logs in),
    /// else mint again.
    private func register(_ login: PendingLogin, attempt: Int, _ completion: @escaping Completion<Login>) {
        guard attempt <= limits.maxWhisperIDMintAttempts, let candidate = WhisperIDMinter.mint(using: random) else {
            return completion(.failure(.internalFailure("no free Whisper ID after \(limits.maxWhisperIDMintAttempts) attempts")))
        }
        withEpoch(of: candidate, completion) { [self] epoch in
            identities.create(candidate, keys: login.keys, device: Self.device(candidate, login.request)) { [self] result in
                switch result {
                case .failure(let error):
                    completion(.failure(.storage(error)))
                case .success(false):
                    log.warn("whisper_id_collision", whisperId: candidate.string, ["attempt": .int(attempt)])
                    recoverBySeed(login, attempt: attempt + 1, completion)
                case .success(true):
                    openSession(candidate, isNew: true, epoch: epoch, login, completion)
                }
            }
        }
    }

    /// Step 6: the exclusive session (the device row was written in step 4 or 5), unless the
    /// identity was revoked since the login read its `epoch`.
    private func openSession(_ whisperId: WhisperID, isNew: Bool, epoch: Int64, _ login: PendingLogin,
                             _ completion: @escaping Completion<Login>) {
        let request = login.request
        let issued = issueSession(whisperId: whisperId, deviceId: request.deviceId, platform: request.platform,
                                  signPublicKey: request.signPublicKey)
        sessions.createExclusive(issued.record, ttlSeconds: limits.sessionTTLSeconds, unlessRevokedAfter: epoch,
                                 origin: login.client.connection) { [self] result in
            switch result {
            case .failure(let error):
                completion(.failure(.storage(error)))
            case .success(.refused(let reason)):
                fail(reason == .banned ? .banned : .authFailed(.unknownIdentity), request, completion)
            case .success(.created(let revoked)):
                log.info("login", whisperId: whisperId.string, deviceId: request.deviceId.string,
                         ["platform": .string(request.platform.rawValue), "newIdentity": .bool(isNew),
                          "revokedSessions": .int(revoked.count)])
                completion(.success(Login(session: issued, isNewIdentity: isNew, revokedSessions: revoked.count)))
            }
        }
    }

    /// A proof past steps 1–3.
    struct PendingLogin {
        let request: RegisterProofPayload
        let client: ClientRef
        let keys: IdentityKeys
    }

    static func device(_ whisperId: WhisperID, _ request: RegisterProofPayload) -> DeviceLogin {
        DeviceLogin(whisperId: whisperId, deviceId: request.deviceId, platform: request.platform,
                    pushToken: request.pushToken, voipToken: request.voipToken)
    }

    func issueSession(whisperId: WhisperID, deviceId: CanonicalUUID, platform: Platform,
                      signPublicKey: [UInt8]) -> IssuedSession {
        let token = SessionToken.generate(using: random)
        let record = SessionRecord(hash: token.hash, whisperId: whisperId, deviceId: deviceId, platform: platform,
                                   signPublicKey: signPublicKey, expiresAtMillis: now() + limits.sessionTTLSeconds * 1000)
        return IssuedSession(token: token, record: record)
    }

    private func fail(_ error: ServiceError, _ request: RegisterProofPayload, _ completion: Completion<Login>) {
        log.info("login_refused", whisperId: request.whisperId?.string, deviceId: request.deviceId.string,
                 code: error.code.rawValue, ["reason": .string(error.logReason)])
        completion(.failure(error))
    }
}
