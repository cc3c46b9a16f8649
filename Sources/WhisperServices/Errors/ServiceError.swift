import WhisperProtocol

/// Everything a use case can fail with, mapped once onto the protocol's error codes
/// (docs/protocol.md "Frames"). `message` is the human text for the `error` frame and never carries a
/// secret or says more than the code does.
public enum ServiceError: Error, Sendable, Equatable {
    case invalidPayload(PayloadError)
    case notRegistered
    case authFailed(AuthFailure)
    case rateLimited(retryAfterMs: Int64)
    case banned
    /// The frame's `timestamp` is outside the accepted skew (±10 min) of server time.
    case invalidTimestamp
    /// The acting identity may not do this (`from` is not the session's id, a banned recipient).
    case forbidden(String)
    /// An unknown whisperId, message, group, call or object.
    case notFound(String)
    /// A store failed; the reply is `INTERNAL_ERROR` and the cause goes to the log.
    case storage(StoreError)
    /// Anything else that is the server's fault (e.g. no free Whisper ID after many tries).
    case internalFailure(String)

    public var code: ErrorCode {
        switch self {
        case .invalidPayload: return .invalidPayload
        case .notRegistered: return .notRegistered
        case .authFailed: return .authFailed
        case .rateLimited: return .rateLimited
        case .banned: return .userBanned
        case .invalidTimestamp: return .invalidTimestamp
        case .forbidden: return .forbidden
        case .notFound: return .notFound
        case .storage, .internalFailure: return .internalError
        }
    }

    public var message: String {
        switch self {
        case .invalidPayload(let error): return error.message
        case .notRegistered: return "no valid session: register first"
        case .authFailed(.challengeUnknown), .authFailed(.challengeMismatch):
            return "challenge unknown, expired or already used"
        case .authFailed: return "authentication failed"
        case .rateLimited: return "rate limit exceeded"
        case .banned: return "this identity is banned"
        case .invalidTimestamp: return "timestamp is outside ±10 minutes of server time"
        case .forbidden(let reason), .notFound(let reason): return reason
        case .storage, .internalFailure: return "internal error"
        }
    }

    /// `retryAfterMs` for `RATE_LIMITED` replies.
    public var retryAfterMs: Int64? {
        if case .rateLimited(let ms) = self { return ms }
        return nil
    }

    /// Server-side detail for the log line (no secrets: reasons and store messages only).
    public var logReason: String {
        switch self {
        case .invalidPayload(let error): return error.message
        case .notRegistered: return "not_registered"
        case .authFailed(let failure): return failure.rawValue
        case .rateLimited: return "rate_limited"
        case .banned: return "banned"
        case .invalidTimestamp: return "invalid_timestamp"
        case .forbidden(let reason), .notFound(let reason): return reason
        case .storage(let error): return error.description
        case .internalFailure(let reason): return reason
        }
    }
}
