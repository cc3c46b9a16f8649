/// Frame opcodes (RFC 6455 §5.2, registry in §11.8).
///
/// Opcodes 0x3–0x7 and 0xB–0xF are reserved; the decoder rejects them with 1002 before an enum
/// value is ever built, so this type only holds the six defined ones.
public enum WebSocketOpcode: UInt8, Sendable {
    case continuation = 0x0
    case text = 0x1
    case binary = 0x2
    case close = 0x8
    case ping = 0x9
    case pong = 0xA

    /// Control frames have the most significant opcode bit set (RFC 6455 §5.5).
    public var isControl: Bool { rawValue & 0x8 != 0 }

    /// Text and binary frames start a data message (RFC 6455 §5.6).
    public var startsMessage: Bool { self == .text || self == .binary }
}
