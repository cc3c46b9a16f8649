import WhisperOps

/// One counter to charge: `action` counted against `subject` under `limit`.
/// `subject` is `ip:<address>` or `id:<whisperId>`; the store turns it into a key
/// (`ratelimit:{subject}:{action}`, docs/operations.md "Redis keys").
public struct RateLimitBucket: Sendable, Equatable {
    public let action: RateLimitAction
    public let subject: String
    public let limit: RateLimit

    public init(action: RateLimitAction, subject: String, limit: RateLimit) {
        self.action = action
        self.subject = subject
        self.limit = limit
    }
}

/// One hit to charge to several buckets at once, all or nothing; `nonce` names the hit.
public struct RateLimitCharge: Sendable, Equatable {
    public let buckets: [RateLimitBucket]
    public let nonce: String
}

/// Whom a hit counts against.
public enum RateLimitSubject: Sendable, Equatable {
    case ip(String)
    case identity(String)

    var scope: RateLimitScope {
        switch self {
        case .ip: return .ip
        case .identity: return .identity
        }
    }

    var key: String {
        switch self {
        case .ip(let address): return "ip:" + address
        case .identity(let whisperId): return "id:" + whisperId
        }
    }
}

/// The answer of a rate-limit check.
public enum RateLimitDecision: Sendable, Equatable {
    case allowed
    /// Refused; the earliest moment a retry can succeed is `retryAfterMs` from now.
    case limited(retryAfterMs: Int64)
}
