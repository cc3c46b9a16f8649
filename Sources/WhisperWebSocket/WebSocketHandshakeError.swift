/// Why an upgrade request was refused (RFC 6455 §4.2.1), with the HTTP response to send.
public enum WebSocketHandshakeError: Error, Equatable, Sendable {
    /// The method is not GET (§4.2.1 item 1).
    case methodNotGet
    /// No Host header (§4.2.1 item 2).
    case missingHost
    /// No `Upgrade` header listing `websocket` (§4.2.1 item 3).
    case missingUpgradeWebSocket
    /// No `Connection` header listing `upgrade` (§4.2.1 item 4).
    case missingConnectionUpgrade
    /// Missing, repeated, or not a base64 encoding of 16 octets (§4.2.1 item 5).
    case invalidKey
    /// `Sec-WebSocket-Version` missing or not 13 (§4.2.1 item 6, §4.4).
    case unsupportedVersion

    /// HTTP status: 426 for the version so the client can retry with 13 (§4.2.2, §4.4); 405 for a
    /// method other than GET; 400 for the rest.
    public var httpStatus: Int {
        switch self {
        case .unsupportedVersion: 426
        case .methodNotGet: 405
        case .missingHost, .missingUpgradeWebSocket, .missingConnectionUpgrade, .invalidKey: 400
        }
    }

    /// Headers the error response must carry: the supported version for 426 (§4.4), the allowed
    /// method for 405 (RFC 9110 §15.5.6).
    public var responseHeaders: [(name: String, value: String)] {
        switch self {
        case .unsupportedVersion: [("Sec-WebSocket-Version", "13")]
        case .methodNotGet: [("Allow", "GET")]
        case .missingHost, .missingUpgradeWebSocket, .missingConnectionUpgrade, .invalidKey: []
        }
    }
}
