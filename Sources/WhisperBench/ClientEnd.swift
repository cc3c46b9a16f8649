import WhisperWebSocket

/// How a client's life ended; reported once to its delegate.
enum ClientEnd: Equatable, Sendable {
    /// TCP never came up (errno text, e.g. "connect(127.0.0.1:8080): Connection refused").
    case connectFailed(String)
    case handshakeFailed(ClientHandshakeError)
    /// The server sent a Close frame (with its status code, if any).
    case closedByServer(code: UInt16?)
    /// Our own close completed (or was cut short by the close timeout).
    case closedByClient
    /// EOF or reset without a Close, a protocol violation, or an output overflow.
    case lost(String)

    /// A short label for error tallies.
    var label: String {
        switch self {
        case .connectFailed: return "connect_failed"
        case .handshakeFailed(.status(let code)): return "handshake_status_\(code)"
        case .handshakeFailed: return "handshake_failed"
        case .closedByServer(let code): return "closed_by_server_\(code.map(String.init) ?? "none")"
        case .closedByClient: return "closed_by_client"
        case .lost: return "connection_lost"
        }
    }
}
