/// What a client acts on after decoding server frames: whole text messages and control frames.
public enum ServerFrameEvent: Equatable, Sendable {
    case text([UInt8])
    case ping([UInt8])
    case pong
    /// The status code, when the Close frame carried one, and the reason after it (RFC 6455
    /// §5.5.1; a draining server's 1001 reason holds `retryAfterMs`).
    case close(code: UInt16?, reason: [UInt8])
}
