import Testing
@testable import WhisperWebSocket

struct ClientFrameDecoderTests {
    private func decode(_ chunks: [[UInt8]], deflate: DeflateParameters? = nil, max: Int = 1 << 20) throws(ClientFrameError)
        -> [ServerFrameEvent] {
        var decoder = ClientFrameDecoder(maxMessageBytes: max, deflate: deflate)
        var events: [ServerFrameEvent] = []
        for chunk in chunks {
            try chunk.withUnsafeBytes { bytes in
                Result { () throws(ClientFrameError) in try decoder.feed(bytes) { events.append($0) } }
            }.get()
        }
        return events
    }

    @Test func serverFrames_fromTheServersEncoder_decodeWhole() throws {
        let text = Array(#"{"type":"pong","payload":{}}"#.utf8)
        let big = [UInt8](repeating: 0x61, count: 70_000)
        let wire = WebSocketFrameEncoder.frame(opcode: .text, payload: text) + WebSocketFrameEncoder.ping([9])
            + WebSocketFrameEncoder.frame(opcode: .text, payload: big) + WebSocketFrameEncoder.close(code: .goingAway)
        #expect(try decode([wire]) == [.text(text), .ping([9]), .text(big), .close(code: 1001, reason: [])])
    }

    @Test func frames_splitAcrossReads_atEveryByte() throws {
        let wire = WebSocketFrameEncoder.frame(opcode: .text, payload: Array("hello".utf8))
            + WebSocketFrameEncoder.frame(opcode: .text, payload: [UInt8](repeating: 0x62, count: 300))
        for cut in 1..<wire.count {
            let events = try decode([Array(wire[..<cut]), Array(wire[cut...])])
            #expect(events == [.text(Array("hello".utf8)), .text([UInt8](repeating: 0x62, count: 300))], "cut \(cut)")
        }
    }

    @Test func fragmentedMessage_withAPingBetween_isReassembled() throws {
        let wire = WebSocketFrameEncoder.frame(opcode: .text, payload: Array("ab".utf8), fin: false)
            + WebSocketFrameEncoder.ping([])
            + WebSocketFrameEncoder.frame(opcode: .continuation, payload: Array("cd".utf8))
        #expect(try decode([wire]) == [.ping([]), .text(Array("abcd".utf8))])
    }

    @Test func compressedMessage_isInflated() throws {
        let text = Array(String(repeating: "message ", count: 40).utf8)
        var encoder = WebSocketFrameEncoder(deflate: DeflateParameters())
        #expect(try decode([encoder.textMessage(text)], deflate: DeflateParameters()) == [.text(text)])
    }

    @Test func maskedServerFrame_failsTheConnection() {
        let masked = ClientFrameEncoder.frame(opcode: .text, payload: [0x61], key: WebSocketMaskingKey(1, 2, 3, 4))
        #expect(throws: ClientFrameError.maskedFrame) { try decode([masked]) }
    }

    @Test func lengthOverTheLimit_failsBeforeThePayloadArrives() throws {
        var header: [UInt8] = []
        WebSocketFrameEncoder.appendHeader(fin: true, rsv1: false, opcode: .text, payloadLength: 1_001, to: &header)
        #expect(throws: ClientFrameError.messageTooBig) { try decode([header], max: 1_000) }
        #expect(try decode([header], max: 1_001).isEmpty)
    }

    @Test func rsv1WithoutDeflate_binary_andStrayContinuation_areRejected() {
        #expect(throws: ClientFrameError.badCompression) {
            try decode([WebSocketFrameEncoder.frame(opcode: .text, payload: [1], rsv1: true)])
        }
        #expect(throws: ClientFrameError.binaryMessage) { try decode([WebSocketFrameEncoder.frame(opcode: .binary, payload: [1])]) }
        #expect(throws: ClientFrameError.badContinuation) {
            try decode([WebSocketFrameEncoder.frame(opcode: .continuation, payload: [1])])
        }
        #expect(throws: ClientFrameError.reservedOpcode(3)) { try decode([[0x83, 0x00]]) }
    }
}
