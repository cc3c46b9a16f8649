/// Why the opening handshake failed (RFC 6455 §4.1: the client fails the connection).
public enum ClientHandshakeError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Anything but `101`; the status is kept, e.g. 503 from a draining server.
    case status(Int)
    case malformedResponse
    case missingUpgrade
    case badAccept
    /// An extension we did not offer, or permessage-deflate parameters we cannot honour.
    case unexpectedExtension(String)
    /// No blank line within the size limit.
    case headTooLarge

    public var description: String {
        switch self {
        case .status(let code): return "handshake status \(code)"
        case .malformedResponse: return "malformed handshake response"
        case .missingUpgrade: return "response lacks Upgrade/Connection"
        case .badAccept: return "wrong Sec-WebSocket-Accept"
        case .unexpectedExtension(let name): return "unexpected extension \(name)"
        case .headTooLarge: return "handshake response too large"
        }
    }
}
