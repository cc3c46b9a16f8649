/// Client-to-server frames (RFC 6455 §5.2), always masked with a fresh key (§5.1, §5.3), one
/// frame per message:
///
/// ```
/// |FIN RSV1 0 0 opcode|1 len7|[len16 | len64]|masking key (4)|masked payload|
/// ```
///
/// With permessage-deflate negotiated, text messages are compressed and carry RSV1 (RFC 7692
/// §6); control frames never are (§6.1).
public struct ClientFrameEncoder {
    private var random: FastRandom
    private let compressor: DeflateCompressor?
    /// Set when zlib failed once; later messages go out uncompressed, which RFC 7692 §6 allows.
    private var compressionDisabled = false

    public init(deflate: DeflateParameters?, random: FastRandom = FastRandom()) {
        self.random = random
        compressor = deflate.map { DeflateCompressor(parameters: $0) }
    }

    /// A complete text message.
    public mutating func text(_ utf8: [UInt8]) -> [UInt8] {
        if let compressor, !compressionDisabled {
            if let compressed = compressor.compress(utf8) {
                return Self.frame(opcode: .text, payload: compressed, rsv1: true, key: nextKey())
            }
            compressionDisabled = true
        }
        return Self.frame(opcode: .text, payload: utf8, key: nextKey())
    }

    /// The answer to a Ping: its application data echoed (RFC 6455 §5.5.3).
    public mutating func pong(_ payload: [UInt8]) -> [UInt8] {
        Self.frame(opcode: .pong, payload: Array(payload.prefix(125)), key: nextKey())
    }

    /// A Close with a status code and no reason (RFC 6455 §5.5.1).
    public mutating func close(code: UInt16) -> [UInt8] {
        Self.frame(opcode: .close, payload: [UInt8(truncatingIfNeeded: code >> 8), UInt8(truncatingIfNeeded: code)],
                   key: nextKey())
    }

    private mutating func nextKey() -> WebSocketMaskingKey {
        let bits = UInt32(truncatingIfNeeded: random.next())
        return WebSocketMaskingKey(UInt8(truncatingIfNeeded: bits), UInt8(truncatingIfNeeded: bits >> 8),
                                   UInt8(truncatingIfNeeded: bits >> 16), UInt8(truncatingIfNeeded: bits >> 24))
    }

    /// One masked frame. The header is the server encoder's with the MASK bit set.
    public static func frame(opcode: WebSocketOpcode, payload: [UInt8], rsv1: Bool = false, key: WebSocketMaskingKey) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(14 + payload.count)
        WebSocketFrameEncoder.appendHeader(fin: true, rsv1: rsv1, opcode: opcode, payloadLength: payload.count, to: &bytes)
        bytes[1] |= 0x80
        bytes.append(key.b0)
        bytes.append(key.b1)
        bytes.append(key.b2)
        bytes.append(key.b3)
        let start = bytes.count
        bytes.append(contentsOf: payload)
        WebSocketMasking.apply(key, to: &bytes, range: start..<bytes.count, keyOffset: 0)
        return bytes
    }
}
