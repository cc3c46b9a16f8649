/// Everything a peer can do wrong on an established WebSocket, as one closed enum.
///
/// `closeCode` is total: each case maps to the status code sent in our Close frame before the
/// connection is failed (RFC 6455 §7.1.7).
public enum WebSocketError: Error, Equatable, Sendable {
    /// A client frame without the MASK bit (RFC 6455 §5.1).
    case unmaskedFrame
    /// RSV1–RSV3 set without a negotiated extension defining them (RFC 6455 §5.2, RFC 7692 §6).
    case reservedBitsSet
    /// Opcode 0x3–0x7 or 0xB–0xF (RFC 6455 §5.2).
    case reservedOpcode(UInt8)
    /// A control frame with FIN clear (RFC 6455 §5.5).
    case fragmentedControlFrame
    /// A control frame payload longer than 125 octets (RFC 6455 §5.5).
    case controlFrameTooLong
    /// A 64-bit payload length with the most significant bit set (RFC 6455 §5.2).
    case invalidPayloadLength
    /// A continuation frame with no fragmented message open (RFC 6455 §5.4).
    case unexpectedContinuation
    /// A text or binary frame while a fragmented message is still open (RFC 6455 §5.4).
    case expectedContinuation
    /// A Close frame with a one-octet payload (RFC 6455 §5.5.1).
    case invalidClosePayload
    /// A Close frame whose status code may not appear on the wire (RFC 6455 §7.4).
    case invalidCloseCode(UInt16)
    /// A text message or close reason that is not UTF-8 (RFC 6455 §8.1).
    case invalidUTF8
    /// A compressed message that does not inflate (RFC 7692 §7.2.2).
    case invalidCompressedData
    /// A message (decompressed, when compressed) over the configured cap.
    case messageTooBig
    /// A binary message: the relay's protocol only carries text (docs/protocol.md "Transport").
    case unsupportedData
    /// zlib failed for a reason that is not the peer's data (out of memory, stream error).
    case compressionFailure

    /// The status code for our Close frame (RFC 6455 §7.4.1).
    public var closeCode: WebSocketCloseCode {
        switch self {
        case .unmaskedFrame, .reservedBitsSet, .reservedOpcode, .fragmentedControlFrame,
             .controlFrameTooLong, .invalidPayloadLength, .unexpectedContinuation,
             .expectedContinuation, .invalidClosePayload, .invalidCloseCode:
            .protocolError
        case .invalidUTF8, .invalidCompressedData:
            .invalidFramePayloadData
        case .messageTooBig:
            .messageTooBig
        case .unsupportedData:
            .unsupportedData
        case .compressionFailure:
            .internalError
        }
    }
}
