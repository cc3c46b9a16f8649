/// Everything a PostgreSQL call can fail with. Closed, so the services layer maps each case
/// to a wire error exactly once (usually 500 INTERNAL_ERROR; 503 for `connectionFailed`).
public enum PostgresError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No usable connection: the server is down, unreachable, restarting, or refused us.
    /// Also used while a worker waits out its reconnect backoff, so callers fail fast.
    case connectionFailed(String)
    /// The statement failed; `sqlState` is the five-character SQLSTATE code.
    case queryFailed(sqlState: String, message: String)
    /// SQLSTATE 23505, split out because callers branch on it ("already exists").
    case uniqueViolation(constraint: String?, message: String)
    /// The statement hit `statement_timeout` (SQLSTATE 57014) or waited in the pool's queue
    /// longer than the queue timeout.
    case timeout
    /// The pool is at its queue limit; the caller should shed load rather than wait.
    case overloaded
    /// `PostgresPool.shutdown()` was called.
    case poolClosed

    /// True when retrying later on a new connection could succeed.
    public var isConnectionError: Bool {
        if case .connectionFailed = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case .connectionFailed(let message): return "PostgreSQL connection failed: \(message)"
        case .queryFailed(let state, let message): return "PostgreSQL error \(state): \(message)"
        case .uniqueViolation(let constraint, let message):
            return "PostgreSQL unique violation (\(constraint ?? "?")): \(message)"
        case .timeout: return "PostgreSQL timeout"
        case .overloaded: return "PostgreSQL pool queue full"
        case .poolClosed: return "PostgreSQL pool closed"
        }
    }

    /// Maps a server error. Class 08 (connection exception) and 57P01–57P03 (shutdown,
    /// crash, cannot connect now) mean the session is gone, not that the statement was bad.
    static func fromServer(sqlState: String, message: String, constraint: String?) -> PostgresError {
        switch sqlState {
        case "23505": return .uniqueViolation(constraint: constraint, message: message)
        case "57014": return .timeout
        case "57P01", "57P02", "57P03": return .connectionFailed(message)
        default:
            if sqlState.hasPrefix("08") { return .connectionFailed(message) }
            return .queryFailed(sqlState: sqlState, message: message)
        }
    }
}
