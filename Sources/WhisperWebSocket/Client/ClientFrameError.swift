/// Why a client fails the connection on what the server sent (RFC 6455 §5, RFC 7692 §6).
public enum ClientFrameError: Error, Equatable, Sendable, CustomStringConvertible {
    /// §5.1: "A client MUST close a connection if it detects a masked frame."
    case maskedFrame
    case reservedBitsSet
    case reservedOpcode(UInt8)
    /// §5.5: control frames are not fragmented and carry at most 125 octets.
    case badControlFrame
    /// A continuation without an open message, or a new data message inside one (§5.4).
    case badContinuation
    /// The protocol is text only.
    case binaryMessage
    case messageTooBig
    /// RSV1 without a negotiated permessage-deflate, or data zlib cannot inflate.
    case badCompression

    public var description: String {
        switch self {
        case .maskedFrame: return "masked server frame"
        case .reservedBitsSet: return "reserved bits set"
        case .reservedOpcode(let code): return "reserved opcode \(code)"
        case .badControlFrame: return "bad control frame"
        case .badContinuation: return "bad continuation"
        case .binaryMessage: return "binary message"
        case .messageTooBig: return "message too big"
        case .badCompression: return "bad compression"
        }
    }
}
