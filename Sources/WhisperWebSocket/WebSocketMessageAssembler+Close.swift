extension WebSocketMessageAssembler {
    /// Parses and validates a Close frame body (RFC 6455 §5.5.1):
    ///
    /// ```
    /// +--------+--------+----------------------------+
    /// | status code     | reason (UTF-8, 0–123 octets)|
    /// | (16 bits, BE)   |                             |
    /// +--------+--------+----------------------------+
    /// ```
    ///
    /// Empty is allowed (no code); one octet is a protocol error; the code must be one a peer may
    /// send (§7.4); the reason must be UTF-8 (§5.5.1, §8.1 → 1007).
    public static func parseClose(_ payload: [UInt8]) throws(WebSocketError) -> WebSocketEvent {
        guard !payload.isEmpty else { return .close(code: nil, reason: []) }
        guard payload.count >= 2 else { throw .invalidClosePayload }
        let code = WebSocketCloseCode(rawValue: UInt16(payload[0]) << 8 | UInt16(payload[1]))
        guard code.isValidOnWire else { throw .invalidCloseCode(code.rawValue) }
        let reason = Array(payload[2...])
        guard UTF8Validator.isValid(reason) else { throw .invalidUTF8 }
        return .close(code: code, reason: reason)
    }
}
