import Testing
@testable import WhisperWebSocket

struct ClientFrameEncoderTests {
    @Test func textFrame_isMaskedWithTheKey_goldenBytes() {
        let key = WebSocketMaskingKey(0x37, 0xFA, 0x21, 0x3D)
        // RFC 6455 §5.7: a masked "Hello".
        let frame = ClientFrameEncoder.frame(opcode: .text, payload: Array("Hello".utf8), key: key)
        #expect(frame == [0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58])
    }

    @Test func frames_decodeWithTheServersDecoder_atEveryLengthForm() throws {
        var encoder = ClientFrameEncoder(deflate: nil, random: FastRandom(seed: 7))
        for length in [0, 125, 126, 65_535, 65_536] {
            let payload = (0..<length).map { UInt8(truncatingIfNeeded: $0 % 90 + 32) }
            var decoder = WebSocketFrameDecoder()
            let frames = try decoder.decode(encoder.text(payload), budget: .uniform(1 << 20))
            #expect(frames == [WebSocketFrame(opcode: .text, payload: payload)], "length \(length)")
        }
    }

    @Test func pongAndClose_areMaskedControlFrames() throws {
        var encoder = ClientFrameEncoder(deflate: nil, random: FastRandom(seed: 1))
        var decoder = WebSocketFrameDecoder()
        let frames = try decoder.decode(encoder.pong([1, 2, 3]) + encoder.close(code: 1000), budget: .uniform(1024))
        #expect(frames == [WebSocketFrame(opcode: .pong, payload: [1, 2, 3]), WebSocketFrame(opcode: .close, payload: [0x03, 0xE8])])
    }

    @Test func compressedText_setsRSV1_andInflatesOnTheServerSide() throws {
        var encoder = ClientFrameEncoder(deflate: DeflateParameters(), random: FastRandom(seed: 3))
        let text = Array(String(repeating: "whisper ", count: 50).utf8)
        let frame = encoder.text(text)
        #expect(frame[0] == 0xC1, "FIN + RSV1 + text")
        var decoder = WebSocketFrameDecoder(allowsCompression: true)
        let decoded = try decoder.decode(frame, budget: .uniform(1 << 20))
        #expect(decoded.count == 1)
        let inflater = DeflateDecompressor(parameters: DeflateParameters())
        #expect(try inflater.decompressMessage(decoded[0].payload, limit: 1 << 20) == text)
    }
}
