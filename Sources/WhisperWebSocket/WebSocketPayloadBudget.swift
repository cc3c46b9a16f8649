/// How many payload octets the next frame may declare, given the message being assembled.
///
/// The assembler knows the message state; the decoder knows the header. Handing the decoder
/// this small value lets it refuse an oversized frame (1009) the moment its length is known,
/// before a single payload octet is buffered (RFC 6455 §10.4).
public struct WebSocketPayloadBudget: Equatable, Sendable {
    /// Limit for an uncompressed text/binary frame that starts a message.
    public var newMessage: Int
    /// Limit for a compressed (RSV1) frame that starts a message: its wire size, since the
    /// decompressed size is only known while inflating (RFC 7692 §7.2.2).
    public var newCompressedMessage: Int
    /// Limit for a continuation frame: what is left of the open message's allowance.
    public var continuation: Int

    public init(newMessage: Int, newCompressedMessage: Int, continuation: Int) {
        self.newMessage = newMessage
        self.newCompressedMessage = newCompressedMessage
        self.continuation = continuation
    }

    /// The same limit for every data frame; useful for a decoder used on its own.
    public static func uniform(_ limit: Int) -> WebSocketPayloadBudget {
        WebSocketPayloadBudget(newMessage: limit, newCompressedMessage: limit, continuation: limit)
    }

    /// The limit that applies to a frame with this opcode and RSV1 bit.
    public func limit(for opcode: WebSocketOpcode, compressed: Bool) -> Int {
        switch opcode {
        case .continuation: continuation
        case .text, .binary: compressed ? newCompressedMessage : newMessage
        case .close, .ping, .pong: 125  // RFC 6455 §5.5
        }
    }
}
