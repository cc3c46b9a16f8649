import Testing
@testable import WhisperWebSocket

@Suite struct WebSocketFrameEncoderTests {
    let hello = Array("Hello".utf8)

    // MARK: RFC 6455 §5.7 examples (unmasked, as a server sends them)

    @Test func singleFrameHelloExample_encodes() {
        var encoder = WebSocketFrameEncoder()
        #expect(encoder.textMessage(hello) == [0x81, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F])
    }

    @Test func fragmentedHelloExample_encodes() {
        #expect(WebSocketFrameEncoder.frame(opcode: .text, payload: Array("Hel".utf8), fin: false) == [0x01, 0x03, 0x48, 0x65, 0x6C])
        #expect(WebSocketFrameEncoder.frame(opcode: .continuation, payload: Array("lo".utf8)) == [0x80, 0x02, 0x6C, 0x6F])
    }

    @Test func pingExample_encodes() {
        #expect(WebSocketFrameEncoder.ping(hello) == [0x89, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F])
    }

    @Test func pong_encodes_echoingThePingPayload() {
        #expect(WebSocketFrameEncoder.pong(hello) == [0x8A, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F])
    }

    @Test func payloadOf256Octets_encodes_withA16BitLength() {
        let payload = [UInt8](repeating: 0xAB, count: 256)
        let frame = WebSocketFrameEncoder.frame(opcode: .binary, payload: payload)
        #expect(Array(frame[0..<4]) == [0x82, 0x7E, 0x01, 0x00])
        #expect(Array(frame[4...]) == payload)
    }

    @Test(arguments: [0, 1, 125, 126, 65_535, 65_536])
    func textMessage_putsTheHeaderInFrontOfTheBytes_withOrWithoutSpareCapacity(length: Int) {
        var encoder = WebSocketFrameEncoder()
        let payload = (0..<length).map { UInt8(truncatingIfNeeded: $0 % 94 + 33) }
        let expected = WebSocketFrameEncoder.frame(opcode: .text, payload: payload)
        var roomy: [UInt8] = []
        roomy.reserveCapacity(length + WebSocketFrameEncoder.maxHeaderLength)
        roomy.append(contentsOf: payload)
        #expect(encoder.textMessage(roomy) == expected)
        #expect(encoder.textMessage(Array(payload)) == expected)
        // A frame still held elsewhere (fan-out to several sockets) is left as it was.
        let shared = payload
        #expect(encoder.textMessage(shared) == expected)
        #expect(shared == payload)
    }

    @Test func payloadOf64KiB_encodes_withA64BitLength() {
        let payload = [UInt8](repeating: 0xCD, count: 65_536)
        let frame = WebSocketFrameEncoder.frame(opcode: .binary, payload: payload)
        #expect(Array(frame[0..<10]) == [0x82, 0x7F, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00])
        #expect(frame.count == 10 + 65_536)
    }

    @Test func length_usesTheShortestForm_atEachBoundary() {
        func header(_ count: Int) -> [UInt8] {
            var bytes: [UInt8] = []
            WebSocketFrameEncoder.appendHeader(fin: true, rsv1: false, opcode: .text, payloadLength: count, to: &bytes)
            return bytes
        }
        #expect(header(125) == [0x81, 125])
        #expect(header(126) == [0x81, 126, 0x00, 0x7E])
        #expect(header(65_535) == [0x81, 126, 0xFF, 0xFF])
        #expect(header(65_536) == [0x81, 127, 0, 0, 0, 0, 0, 1, 0, 0])
    }

    @Test func close_encodes_withCodeAndReason() {
        #expect(WebSocketFrameEncoder.close(code: .goingAway, reason: "bye") == [0x88, 0x05, 0x03, 0xE9, 0x62, 0x79, 0x65])
        #expect(WebSocketFrameEncoder.close(code: WebSocketCloseCode(rawValue: 4001)) == [0x88, 0x02, 0x0F, 0xA1])
    }

    @Test func longCloseReason_isTruncated_onACharacterBoundary() {
        let frame = WebSocketFrameEncoder.close(code: .normalClosure, reason: String(repeating: "é", count: 100))
        #expect(frame[1] == 2 + 122)  // 61 two-octet characters fit in 123 octets
        #expect(UTF8Validator.isValid(frame[4...]))
    }

    @Test func encoder_setsRSV1AndCompresses_whenDeflateIsNegotiated() {
        var encoder = WebSocketFrameEncoder(deflate: DeflateParameters())
        // RFC 7692 §7.2.3.1: "Hello" compressed is f2 48 cd c9 c9 07 00.
        #expect(encoder.textMessage(hello) == [0xC1, 0x07, 0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00])
    }
}
