/// Why a Redis command got no reply. Error replies from the server are not errors here:
/// they arrive as `RedisValue.error(message)`, since scripts and callers branch on them.
public enum RedisError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not connected (connecting, backing off, or the connection dropped while the
    /// command was in flight). Commands are never queued while disconnected.
    case disconnected
    /// No reply within the command timeout; the connection was torn down and is
    /// reconnecting. Commands in flight with it fail with `.timeout` too.
    case timeout
    /// The client or subscriber was closed.
    case closed
    /// Refused before sending: empty argument list, or a command that would break the
    /// reply order (SUBSCRIBE and MONITOR belong to `RedisSubscriber`).
    case invalidCommand(String)

    public var description: String {
        switch self {
        case .disconnected: return "Redis disconnected"
        case .timeout: return "Redis command timed out"
        case .closed: return "Redis client closed"
        case .invalidCommand(let reason): return "invalid Redis command: \(reason)"
        }
    }
}
