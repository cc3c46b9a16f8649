/// What a complete message or control frame means, as produced by the assembler.
public enum WebSocketEvent: Equatable, Sendable {
    /// A whole text message, UTF-8 already validated, decompressed if it was compressed.
    case text([UInt8])
    /// A whole binary message.
    case binary([UInt8])
    case ping([UInt8])
    case pong([UInt8])
    /// A Close frame: code nil when the payload was empty (RFC 6455 §5.5.1); reason is valid UTF-8.
    case close(code: WebSocketCloseCode?, reason: [UInt8])
}
