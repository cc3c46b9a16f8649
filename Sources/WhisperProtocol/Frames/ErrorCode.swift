/// The frozen protocol error codes (docs/protocol.md "Frames") and their HTTP status (docs/protocol.md "HTTP").
public enum ErrorCode: String, Sendable, CaseIterable {
    case notRegistered = "NOT_REGISTERED"
    case authFailed = "AUTH_FAILED"
    case invalidPayload = "INVALID_PAYLOAD"
    case invalidTimestamp = "INVALID_TIMESTAMP"
    case rateLimited = "RATE_LIMITED"
    case userBanned = "USER_BANNED"
    case notFound = "NOT_FOUND"
    case forbidden = "FORBIDDEN"
    case internalError = "INTERNAL_ERROR"

    public var httpStatus: Int {
        switch self {
        case .invalidPayload, .invalidTimestamp: return 400
        case .notRegistered, .authFailed: return 401
        case .userBanned, .forbidden: return 403
        case .notFound: return 404
        case .rateLimited: return 429
        case .internalError: return 500
        }
    }
}
