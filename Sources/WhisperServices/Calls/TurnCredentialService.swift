import WhisperOps
import WhisperProtocol

/// Short-lived TURN credentials for calls (docs/protocol.md "TURN credentials"), in the TURN
/// REST scheme that coturn's `use-auth-secret` checks without a database:
///
///     username   = "<unix expiry seconds>:<whisperId>"
///     credential = base64(HMAC-SHA1(shared secret, username))
///
/// coturn recomputes the HMAC with the same secret and refuses an expired username, so the
/// relay and coturn share nothing but the secret. The secret is never logged.
///
/// `get_turn_credentials`, top to bottom: TURN configured → else `INTERNAL_ERROR` (an
/// operator's setting, logged); CALL rate limit per identity and IP → else `RATE_LIMITED`;
/// then the credentials, valid `Limits.turnCredentialTTLSeconds` from now.
public final class TurnCredentialService {
    public typealias Completion<T> = (Result<T, ServiceError>) -> Void

    public struct Credentials: Sendable, Equatable {
        public let urls: [String]
        public let username: String
        public let credential: String
        public let ttlSeconds: Int
    }

    private let settings: TurnSettings?
    private let limits: Limits
    private let rateLimiter: RateLimiter
    private let now: () -> Int64

    public init(settings: TurnSettings?, limits: Limits, rateLimiter: RateLimiter, now: @escaping () -> Int64) {
        self.settings = settings
        self.limits = limits
        self.rateLimiter = rateLimiter
        self.now = now
    }

    public func issue(for session: SessionRecord, client: ClientRef, completion: @escaping Completion<Credentials>) {
        guard let settings else {
            return completion(.failure(.internalFailure("TURN is not configured (WHISPER_TURN_SECRET, WHISPER_TURN_URLS)")))
        }
        let ttl = limits.turnCredentialTTLSeconds
        rateLimiter.check(.call, subjects: [.identity(session.whisperId.string), .ip(client.ip)]) { [now] result in
            switch result {
            case .failure(let error):
                completion(.failure(error))
            case .success:
                let expiry = now() / 1000 + Int64(ttl)
                completion(.success(Self.credentials(for: session.whisperId, expiresAtSeconds: expiry,
                                                     settings: settings, ttlSeconds: ttl)))
            }
        }
    }

    /// The credentials for `whisperId` that expire at `expiresAtSeconds` (Unix seconds).
    static func credentials(for whisperId: WhisperID, expiresAtSeconds: Int64, settings: TurnSettings,
                            ttlSeconds: Int) -> Credentials {
        let username = "\(expiresAtSeconds):\(whisperId.string)"
        let mac = HMACSHA1.authenticate(Array(username.utf8), key: Array(settings.secret.unredacted.utf8))
        return Credentials(urls: settings.urls, username: username, credential: Base64.encode(mac), ttlSeconds: ttlSeconds)
    }
}
