@testable import WhisperWebSocket

/// Builds client frames (masked, as RFC 6455 §5.1 requires) for decoder and connection tests.
enum ClientFrames {
    static let key = WebSocketMaskingKey(0x37, 0xFA, 0x21, 0x3D)  // the RFC 6455 §5.7 example key

    enum LengthForm { case minimal, sixteen, sixtyFour }

    static func frame(
        _ opcode: UInt8, _ payload: [UInt8], fin: Bool = true, rsv: UInt8 = 0, masked: Bool = true,
        key: WebSocketMaskingKey = key, length: LengthForm = .minimal
    ) -> [UInt8] {
        var bytes: [UInt8] = [(fin ? 0x80 : 0) | rsv | opcode]
        let maskBit: UInt8 = masked ? 0x80 : 0
        let count = payload.count
        switch (length, count) {
        case (.minimal, 0...125):
            bytes.append(maskBit | UInt8(count))
        case (.minimal, 126...0xFFFF), (.sixteen, _):
            bytes += [maskBit | 126, UInt8(count >> 8 & 0xFF), UInt8(count & 0xFF)]
        default:
            bytes.append(maskBit | 127)
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: count >> shift)) }
        }
        var body = payload
        if masked {
            bytes += [key.b0, key.b1, key.b2, key.b3]
            WebSocketMasking.apply(key, to: &body, range: 0..<body.count, keyOffset: 0)
        }
        return bytes + body
    }

    static func text(_ string: String, fin: Bool = true) -> [UInt8] { frame(0x1, Array(string.utf8), fin: fin) }
    static func continuation(_ string: String, fin: Bool = true) -> [UInt8] { frame(0x0, Array(string.utf8), fin: fin) }
    static func ping(_ payload: [UInt8] = []) -> [UInt8] { frame(0x9, payload) }
    static func close(_ code: UInt16?, reason: [UInt8] = []) -> [UInt8] {
        guard let code else { return frame(0x8, []) }
        return frame(0x8, [UInt8(code >> 8), UInt8(code & 0xFF)] + reason)
    }
}
