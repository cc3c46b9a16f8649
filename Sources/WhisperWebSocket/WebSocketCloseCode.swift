/// A close status code (RFC 6455 §7.4).
///
/// A plain wrapper rather than an enum: application codes (3000–4999, e.g. 4001 "revoked") are
/// open-ended, and a peer may send any 16-bit value that must then be judged by `isValidOnWire`.
public struct WebSocketCloseCode: RawRepresentable, Hashable, Sendable {
    public var rawValue: UInt16

    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// 1000: the purpose of the connection has been fulfilled (RFC 6455 §7.4.1).
    public static let normalClosure = WebSocketCloseCode(rawValue: 1000)
    /// 1001: the endpoint is going away (server shutdown, idle timeout).
    public static let goingAway = WebSocketCloseCode(rawValue: 1001)
    /// 1002: protocol error.
    public static let protocolError = WebSocketCloseCode(rawValue: 1002)
    /// 1003: a data type the endpoint cannot accept (binary, for this relay).
    public static let unsupportedData = WebSocketCloseCode(rawValue: 1003)
    /// 1007: payload inconsistent with the message type (invalid UTF-8 in text).
    public static let invalidFramePayloadData = WebSocketCloseCode(rawValue: 1007)
    /// 1008: policy violation.
    public static let policyViolation = WebSocketCloseCode(rawValue: 1008)
    /// 1009: a message too big to process.
    public static let messageTooBig = WebSocketCloseCode(rawValue: 1009)
    /// 1010: the client expected an extension the server did not negotiate.
    public static let mandatoryExtension = WebSocketCloseCode(rawValue: 1010)
    /// 1011: an unexpected condition inside the server.
    public static let internalError = WebSocketCloseCode(rawValue: 1011)

    /// Whether a peer may put this code in a Close frame.
    ///
    /// RFC 6455 §7.4.1 defines 1000–1003 and 1007–1011 for use on the wire; 1004 is reserved,
    /// 1005, 1006 and 1015 MUST NOT be sent (§7.4.1), 0–999 are unused and 1016–2999 are reserved
    /// for future RFCs (§7.4.2). 3000–3999 (registered) and 4000–4999 (private) are for
    /// applications. Anything else received is a protocol error (1002).
    public var isValidOnWire: Bool {
        switch rawValue {
        case 1000...1003, 1007...1011, 3000...4999: true
        default: false
        }
    }
}
