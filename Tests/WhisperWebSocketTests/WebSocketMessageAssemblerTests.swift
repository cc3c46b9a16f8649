import Testing
@testable import WhisperWebSocket

@Suite struct WebSocketMessageAssemblerTests {
    func text(_ s: String, fin: Bool = true) -> WebSocketFrame { WebSocketFrame(fin: fin, opcode: .text, payload: Array(s.utf8)) }
    func more(_ bytes: [UInt8], fin: Bool = true) -> WebSocketFrame { WebSocketFrame(fin: fin, opcode: .continuation, payload: bytes) }

    @Test func singleFrameTextMessage_isDelivered() throws {
        var assembler = WebSocketMessageAssembler()
        #expect(try assembler.append(text("Hello")) == .text(Array("Hello".utf8)))
    }

    @Test func fragments_areReassembled() throws {
        var assembler = WebSocketMessageAssembler()
        #expect(try assembler.append(text("Hel", fin: false)) == nil)
        #expect(try assembler.append(more(Array("l".utf8), fin: false)) == nil)
        #expect(try assembler.append(more(Array("o".utf8))) == .text(Array("Hello".utf8)))
        #expect(try assembler.append(text("again")) == .text(Array("again".utf8)))
    }

    @Test func interleavedControlFrames_areReturned_betweenFragments() throws {
        var assembler = WebSocketMessageAssembler()
        #expect(try assembler.append(text("Hel", fin: false)) == nil)
        #expect(try assembler.append(WebSocketFrame(opcode: .ping, payload: [1])) == .ping([1]))
        #expect(try assembler.append(WebSocketFrame(opcode: .pong, payload: [])) == .pong([]))
        #expect(try assembler.append(more(Array("lo".utf8))) == .text(Array("Hello".utf8)))
    }

    @Test func continuationWithoutAStart_isRejected() {
        var assembler = WebSocketMessageAssembler()
        #expect(throws: WebSocketError.unexpectedContinuation) { try assembler.append(more([0x41])) }
    }

    @Test func newDataFrame_isRejected_insideAFragmentedMessage() throws {
        var assembler = WebSocketMessageAssembler()
        _ = try assembler.append(text("Hel", fin: false))
        #expect(throws: WebSocketError.expectedContinuation) { try assembler.append(text("lo")) }
    }

    // MARK: Size cap

    @Test func fragmentedMessageOfExactlyTheCap_isAccepted() throws {
        var assembler = WebSocketMessageAssembler(maxMessageBytes: 10)
        _ = try assembler.append(WebSocketFrame(fin: false, opcode: .text, payload: Array(repeating: 0x41, count: 6)))
        #expect(assembler.budget.continuation == 4)
        #expect(try assembler.append(more(Array(repeating: 0x41, count: 4))) == .text(Array(repeating: 0x41, count: 10)))
    }

    @Test func fragmentedMessageOneOverTheCap_isRejected() throws {
        var assembler = WebSocketMessageAssembler(maxMessageBytes: 10)
        _ = try assembler.append(WebSocketFrame(fin: false, opcode: .text, payload: Array(repeating: 0x41, count: 6)))
        #expect(throws: WebSocketError.messageTooBig) { try assembler.append(more(Array(repeating: 0x41, count: 5))) }
    }

    @Test func compressedMessages_areCapped_onTheirDecompressedSize() throws {
        let parameters = DeflateParameters()
        let compressed = DeflateCompressor(parameters: parameters).compress(Array(repeating: 0x41, count: 1001))
        var small = WebSocketMessageAssembler(maxMessageBytes: 1000, deflate: parameters)
        #expect(throws: WebSocketError.messageTooBig) {
            try small.append(WebSocketFrame(rsv1: true, opcode: .text, payload: compressed ?? []))
        }
        var exact = WebSocketMessageAssembler(maxMessageBytes: 1001, deflate: parameters)
        #expect(try exact.append(WebSocketFrame(rsv1: true, opcode: .text, payload: compressed ?? [])) == .text(Array(repeating: 0x41, count: 1001)))
    }

    @Test func compressedMessage_isReassembled_whenSplitAcrossFragments() throws {
        let parameters = DeflateParameters()
        let message = Array(String(repeating: "compress me, ", count: 50).utf8)
        let compressed = DeflateCompressor(parameters: parameters).compress(message) ?? []
        var assembler = WebSocketMessageAssembler(deflate: parameters)
        let cut = compressed.count / 2
        #expect(try assembler.append(WebSocketFrame(fin: false, rsv1: true, opcode: .text, payload: Array(compressed[..<cut]))) == nil)
        #expect(try assembler.append(more(Array(compressed[cut...]), fin: false)) == nil)
        #expect(try assembler.append(more([])) == .text(message))  // an empty final fragment
    }

    // MARK: UTF-8

    @Test func invalidUTF8_isRejected_inATextMessage() {
        var assembler = WebSocketMessageAssembler()
        #expect(throws: WebSocketError.invalidUTF8) { try assembler.append(WebSocketFrame(opcode: .text, payload: [0xCE, 0xBA, 0xFF])) }
    }

    @Test func codePoint_isAccepted_whenSplitAcrossFragments() throws {
        var assembler = WebSocketMessageAssembler()
        let euro: [UInt8] = [0xE2, 0x82, 0xAC]
        #expect(try assembler.append(WebSocketFrame(fin: false, opcode: .text, payload: [0x41, euro[0]])) == nil)
        #expect(try assembler.append(more([euro[1]], fin: false)) == nil)
        #expect(try assembler.append(more([euro[2]])) == .text([0x41] + euro))
    }

    @Test func assembler_failsFast_onTheFragmentThatMakesTextInvalid() throws {
        var assembler = WebSocketMessageAssembler()
        _ = try assembler.append(WebSocketFrame(fin: false, opcode: .text, payload: [0xCE, 0xBA]))
        #expect(throws: WebSocketError.invalidUTF8) { try assembler.append(more([0xED, 0xA0, 0x80], fin: false)) }
    }

    @Test func textEndingInsideACodePoint_isRejected() {
        var assembler = WebSocketMessageAssembler()
        #expect(throws: WebSocketError.invalidUTF8) { try assembler.append(WebSocketFrame(opcode: .text, payload: [0x41, 0xE2, 0x82])) }
    }

    @Test func partialFrame_isValidated_andValidationContinuesWhereItStopped() throws {
        var assembler = WebSocketMessageAssembler()
        let header = WebSocketFrameHeader(fin: true, rsv1: false, opcode: .text, payloadLength: 4)
        try assembler.inspectPartialFrame(header, payload: [0x41, 0xE2])
        #expect(try assembler.append(WebSocketFrame(opcode: .text, payload: [0x41, 0xE2, 0x82, 0xAC])) == .text([0x41, 0xE2, 0x82, 0xAC]))
        #expect(throws: WebSocketError.invalidUTF8) { try assembler.inspectPartialFrame(header, payload: [0x41, 0xC0]) }
    }

    @Test func binaryMessages_areNotValidated() throws {
        var assembler = WebSocketMessageAssembler()
        #expect(try assembler.append(WebSocketFrame(opcode: .binary, payload: [0xFF])) == .binary([0xFF]))
    }

    // MARK: Close frames

    @Test func closeFrames_parse() throws {
        #expect(try WebSocketMessageAssembler.parseClose([]) == .close(code: nil, reason: []))
        #expect(try WebSocketMessageAssembler.parseClose([0x03, 0xE8]) == .close(code: .normalClosure, reason: []))
        #expect(try WebSocketMessageAssembler.parseClose([0x0F, 0xA1, 0x6F, 0x6B]) == .close(code: WebSocketCloseCode(rawValue: 4001), reason: Array("ok".utf8)))
    }

    @Test func oneOctetClosePayload_isRejected() {
        #expect(throws: WebSocketError.invalidClosePayload) { try WebSocketMessageAssembler.parseClose([0x03]) }
    }

    @Test(arguments: [0, 999, 1004, 1005, 1006, 1015, 1016, 2999, 5000] as [UInt16])
    func closeCodesAPeerMayNotSend_areRejected(code: UInt16) {
        #expect(throws: WebSocketError.invalidCloseCode(code)) {
            try WebSocketMessageAssembler.parseClose([UInt8(code >> 8), UInt8(code & 0xFF)])
        }
    }

    @Test func closeReasonThatIsNotUTF8_isRejected() {
        #expect(throws: WebSocketError.invalidUTF8) { try WebSocketMessageAssembler.parseClose([0x03, 0xE8, 0xCE, 0xBA, 0xE1, 0xBD]) }
    }
}
