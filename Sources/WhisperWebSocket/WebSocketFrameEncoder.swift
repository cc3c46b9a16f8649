/// Encodes server frames (RFC 6455 §5.2): never masked (§5.1), one frame per message, with the
/// shortest of the 7-, 16- or 64-bit length forms.
///
/// Holds the compressor when permessage-deflate was negotiated; data messages are then sent with
/// RSV1 set (RFC 7692 §6). Control frames are never compressed (§6.1).
public struct WebSocketFrameEncoder {
    private let compressor: DeflateCompressor?
    /// Set when zlib failed once: from then on messages go out uncompressed, which is always
    /// allowed (RFC 7692 §6: RSV1 is per message), instead of closing the connection.
    private var compressionDisabled = false

    public init(deflate: DeflateParameters? = nil) {
        compressor = deflate.map { DeflateCompressor(parameters: $0) }
    }

    /// The longest frame header (64-bit length form).
    public static let maxHeaderLength = 10

    /// A complete text message, compressed if negotiated. Uncompressed, the header goes in
    /// front of the message's own bytes: in place, without a second array, when the caller hands
    /// over the only reference to them and left `maxHeaderLength` bytes of spare capacity.
    public mutating func textMessage(_ utf8: consuming [UInt8]) -> [UInt8] {
        dataMessage(.text, utf8)
    }

    /// A complete binary message, compressed if negotiated.
    public mutating func binaryMessage(_ bytes: consuming [UInt8]) -> [UInt8] {
        dataMessage(.binary, bytes)
    }

    private mutating func dataMessage(_ opcode: WebSocketOpcode, _ payload: consuming [UInt8]) -> [UInt8] {
        if let compressor, !compressionDisabled {
            if let compressed = compressor.compress(payload) {
                return Self.frame(opcode: opcode, payload: compressed, rsv1: true)
            }
            compressionDisabled = true
        }
        var bytes = consume payload
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.maxHeaderLength) { header in
            let length = Self.writeHeader(fin: true, rsv1: false, opcode: opcode, payloadLength: bytes.count, into: header)
            bytes.insert(contentsOf: UnsafeBufferPointer(rebasing: header[..<length]), at: 0)
        }
        return bytes
    }

    // MARK: - Stateless frames

    /// One frame with the given header bits and payload.
    public static func frame(opcode: WebSocketOpcode, payload: some Collection<UInt8>, fin: Bool = true, rsv1: Bool = false) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(10 + payload.count)
        appendHeader(fin: fin, rsv1: rsv1, opcode: opcode, payloadLength: payload.count, to: &bytes)
        bytes.append(contentsOf: payload)
        return bytes
    }

    /// Appends a server frame header:
    ///
    /// ```
    /// len ≤ 125:    |FIN RSV1 0 0 opcode|0 len7|
    /// len ≤ 65535:  |FIN RSV1 0 0 opcode|0 126 |len16 (BE)|
    /// otherwise:    |FIN RSV1 0 0 opcode|0 127 |len64 (BE, MSB 0)|
    /// ```
    public static func appendHeader(fin: Bool, rsv1: Bool, opcode: WebSocketOpcode, payloadLength: Int, to bytes: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maxHeaderLength) { header in
            let length = writeHeader(fin: fin, rsv1: rsv1, opcode: opcode, payloadLength: payloadLength, into: header)
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: header[..<length]))
        }
    }

    /// Writes the header into `header` (at least `maxHeaderLength` bytes); returns its length.
    static func writeHeader(fin: Bool, rsv1: Bool, opcode: WebSocketOpcode, payloadLength: Int,
                            into header: UnsafeMutableBufferPointer<UInt8>) -> Int {
        header[0] = (fin ? 0x80 : 0) | (rsv1 ? 0x40 : 0) | opcode.rawValue
        let length = UInt64(truncatingIfNeeded: max(0, payloadLength))
        switch length {
        case 0...125:
            header[1] = UInt8(truncatingIfNeeded: length)
            return 2
        case 126...0xFFFF:
            header[1] = 126
            header[2] = UInt8(truncatingIfNeeded: length >> 8)
            header[3] = UInt8(truncatingIfNeeded: length)
            return 4
        default:
            header[1] = 127
            for i in 0..<8 { header[2 + i] = UInt8(truncatingIfNeeded: length >> (56 - 8 * i)) }
            return 10
        }
    }

    /// A Ping; the payload is cut to the 125 octets a control frame may carry (RFC 6455 §5.5).
    public static func ping(_ payload: [UInt8] = []) -> [UInt8] {
        frame(opcode: .ping, payload: payload.prefix(125))
    }

    /// A Pong echoing a Ping's application data (RFC 6455 §5.5.3).
    public static func pong(_ payload: [UInt8]) -> [UInt8] {
        frame(opcode: .pong, payload: payload.prefix(125))
    }

    /// A Close frame with a status code and a reason of at most 123 octets, cut on a UTF-8
    /// boundary (RFC 6455 §5.5.1: two octets of code + reason ≤ 125).
    public static func close(code: WebSocketCloseCode, reason: String = "") -> [UInt8] {
        var payload: [UInt8] = [UInt8(truncatingIfNeeded: code.rawValue >> 8), UInt8(truncatingIfNeeded: code.rawValue)]
        payload.append(contentsOf: truncatedUTF8(reason, maxBytes: 123))
        return frame(opcode: .close, payload: payload)
    }

    /// The longest prefix of `string` that is at most `maxBytes` octets and whole characters.
    static func truncatedUTF8(_ string: String, maxBytes: Int) -> [UInt8] {
        var out: [UInt8] = []
        for scalar in string.unicodeScalars {
            let encoded = Array(String(scalar).utf8)
            guard out.count + encoded.count <= maxBytes else { break }
            out.append(contentsOf: encoded)
        }
        return out
    }
}
