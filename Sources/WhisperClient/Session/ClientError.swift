import WhisperProtocol

/// Why a client operation failed. `isTerminal` says whether reconnecting can help: a revoked,
/// banned or deleted identity, a failed proof or a key-change alarm stop the client; the
/// others are retried with backoff.
public enum ClientError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The network: refused, reset, TLS, handshake, no reply in time.
    case transport(String)
    /// The server closed the socket (1001: draining, with its `retryAfterMs` hint).
    case closed(code: UInt16?, retryAfterMillis: Int64?)
    /// 4001 (another device logged in), 4003 (banned), 4004 (account deleted): never retried.
    case revoked(code: UInt16)
    /// An `error` frame or HTTP error: the contract's code, its message, and `retryAfterMs`.
    case server(code: String, message: String, retryAfterMillis: Int64?)
    /// A contact's keys differ from the ones pinned for it (spec §3.6): someone may be
    /// impersonating it. Nothing is sent to or accepted from it until the user decides.
    case keyChanged(WhisperID)
    /// The contact has no identity (never registered, or deleted).
    case unknownContact(WhisperID)
    /// A reply the protocol does not allow.
    case protocolViolation(String)
    /// The home folder could not be read or written.
    case storage(String)
    case wrongPassphrase
    case noIdentity
    case notConnected

    public var isTerminal: Bool {
        switch self {
        case .revoked, .keyChanged, .wrongPassphrase, .noIdentity, .storage: true
        case .server(let code, _, _): code == "AUTH_FAILED" || code == "USER_BANNED"
        case .transport, .closed, .unknownContact, .protocolViolation, .notConnected: false
        }
    }

    public var description: String {
        switch self {
        case .transport(let what): "connection failed: \(what)"
        case .closed(let code, _): "server closed the connection (\(code.map(String.init) ?? "no close frame"))"
        case .revoked(4001): "this session was ended by a newer login of the same identity, or by an operator logging it out (4001)"
        case .revoked(4003): "the identity is banned (4003)"
        case .revoked(4004): "the account was deleted (4004)"
        case .revoked(let code): "session revoked (\(code))"
        case .server(let code, let message, _): "\(code): \(message)"
        case .keyChanged(let id): "the keys of \(id) changed since they were pinned"
        case .unknownContact(let id): "\(id) is not a registered identity"
        case .protocolViolation(let what): "unexpected reply: \(what)"
        case .storage(let what): "storage: \(what)"
        case .wrongPassphrase: "wrong passphrase"
        case .noIdentity: "no identity in this home folder (run `whisper init` or `whisper recover`)"
        case .notConnected: "not connected"
        }
    }
}
