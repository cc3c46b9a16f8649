/// What a client acts on after decoding server frames: whole text messages and control frames.
enum ServerFrameEvent: Equatable, Sendable {
    case text([UInt8])
    case ping([UInt8])
    case pong
    /// The status code, when the Close frame carried one (RFC 6455 §5.5.1).
    case close(code: UInt16?)
}
