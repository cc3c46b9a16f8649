import Testing
@testable import WhisperWebSocket

@Suite struct WebSocketFrameDecoderTests {
    let hello = Array("Hello".utf8)
    let budget = WebSocketPayloadBudget.uniform(1 << 20)

    /// Feeds `bytes` split at every given cut point and collects the frames.
    func decode(_ bytes: [UInt8], cuts: [Int] = [], budget: WebSocketPayloadBudget? = nil, compression: Bool = false) throws(WebSocketError) -> [WebSocketFrame] {
        var decoder = WebSocketFrameDecoder(allowsCompression: compression)
        var frames: [WebSocketFrame] = []
        var start = 0
        for cut in cuts + [bytes.count] {
            frames += try decoder.decode(bytes[start..<cut], budget: budget ?? self.budget)
            start = cut
        }
        return frames
    }

    // MARK: RFC 6455 §5.7 examples (masked, as a server receives them)

    @Test func maskedHelloExample_decodes() throws {
        let bytes: [UInt8] = [0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58]
        #expect(try decode(bytes) == [WebSocketFrame(opcode: .text, payload: hello)])
    }

    @Test func maskedPongExample_decodes() throws {
        let bytes: [UInt8] = [0x8A, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58]
        #expect(try decode(bytes) == [WebSocketFrame(opcode: .pong, payload: hello)])
    }

    @Test func fragmentedHelloExample_decodes() throws {
        let bytes = ClientFrames.frame(0x1, Array("Hel".utf8), fin: false) + ClientFrames.frame(0x0, Array("lo".utf8))
        #expect(try decode(bytes) == [
            WebSocketFrame(fin: false, opcode: .text, payload: Array("Hel".utf8)),
            WebSocketFrame(opcode: .continuation, payload: Array("lo".utf8)),
        ])
    }

    @Test func pingWithPayload_decodes() throws {
        #expect(try decode(ClientFrames.ping(hello)) == [WebSocketFrame(opcode: .ping, payload: hello)])
    }

    @Test func payloadOf256Octets_decodes_withA16BitLength() throws {
        let payload = (0..<256).map { UInt8($0) }
        let bytes = ClientFrames.frame(0x2, payload)
        #expect(Array(bytes[0..<4]) == [0x82, 0xFE, 0x01, 0x00])
        #expect(try decode(bytes) == [WebSocketFrame(opcode: .binary, payload: payload)])
    }

    @Test func payloadOf64KiB_decodes_withA64BitLength() throws {
        let payload = (0..<65_536).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let bytes = ClientFrames.frame(0x2, payload)
        #expect(Array(bytes[0..<10]) == [0x82, 0xFF, 0, 0, 0, 0, 0, 0x01, 0x00, 0x00])
        #expect(try decode(bytes) == [WebSocketFrame(opcode: .binary, payload: payload)])
    }

    @Test func nonMinimalLengthEncodings_areAccepted() throws {
        #expect(try decode(ClientFrames.frame(0x1, hello, length: .sixteen)) == [WebSocketFrame(opcode: .text, payload: hello)])
        #expect(try decode(ClientFrames.frame(0x1, hello, length: .sixtyFour)) == [WebSocketFrame(opcode: .text, payload: hello)])
    }

    @Test func emptyPayloads_decode() throws {
        #expect(try decode(ClientFrames.frame(0x1, [])) == [WebSocketFrame(opcode: .text, payload: [])])
    }

    // MARK: Split reads

    @Test func splitReads_yieldTheSameFrames_atEveryByteBoundary() throws {
        let stream = ClientFrames.frame(0x1, Array("Hel".utf8), fin: false)
            + ClientFrames.ping(hello)
            + ClientFrames.frame(0x0, Array("lo".utf8))
            + ClientFrames.frame(0x2, (0..<300).map { UInt8(truncatingIfNeeded: $0) })
            + ClientFrames.frame(0x1, [])
        let expected = try decode(stream)
        #expect(expected.count == 5)
        for cut in 0...stream.count {
            #expect(try decode(stream, cuts: [cut]) == expected, "cut at \(cut)")
        }
    }

    @Test func oneByteAtATime_yieldsTheSameFrames() throws {
        let stream = ClientFrames.frame(0x1, Array(repeating: 0x41, count: 70_000)) + ClientFrames.close(1000)
        let frames = try decode(stream, cuts: Array(1..<stream.count))
        #expect(frames.map(\.opcode) == [.text, .close])
        #expect(frames.first?.payload == Array(repeating: 0x41, count: 70_000))
    }

    @Test func partialFrame_isReported_withThePayloadSoFar() throws {
        var decoder = WebSocketFrameDecoder()
        let bytes = ClientFrames.text("Hello")
        #expect(try decoder.decode(bytes[0..<8], budget: budget).isEmpty)
        #expect(decoder.partialHeader?.payloadLength == 5)
        #expect(decoder.partialFrame?.payload == Array("He".utf8))
    }

    // MARK: Limits

    @Test func frameOfExactlyTheBudget_isAccepted() throws {
        let frames = try decode(ClientFrames.frame(0x1, Array(repeating: 0x41, count: 1000)), budget: .uniform(1000))
        #expect(frames.count == 1)
    }

    @Test func frameOneOverTheBudget_isRejected_beforeItsPayloadArrives() {
        let header = Array(ClientFrames.frame(0x1, Array(repeating: 0x41, count: 1001))[0..<8])
        #expect(throws: WebSocketError.messageTooBig) { try decode(header, budget: .uniform(1000)) }
    }

    @Test func huge64BitLength_isRejected_withoutAllocating() {
        let header: [UInt8] = [0x82, 0xFF, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 1, 2, 3, 4]
        #expect(throws: WebSocketError.messageTooBig) { try decode(header) }
    }

    @Test func lengthWithTheMostSignificantBitSet_isRejected() {
        let header: [UInt8] = [0x82, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0x01, 1, 2, 3, 4]
        #expect(throws: WebSocketError.invalidPayloadLength) { try decode(header) }
    }

    @Test func framesWithRSV1_useTheCompressedLimit() throws {
        let budget = WebSocketPayloadBudget(newMessage: 10, newCompressedMessage: 20, continuation: 5)
        #expect(try decode(ClientFrames.frame(0x1, Array(repeating: 0, count: 20), rsv: 0x40), budget: budget, compression: true).count == 1)
        #expect(throws: WebSocketError.messageTooBig) {
            try decode(ClientFrames.frame(0x1, Array(repeating: 0, count: 11)), budget: budget, compression: true)
        }
        #expect(throws: WebSocketError.messageTooBig) {
            try decode(ClientFrames.frame(0x0, Array(repeating: 0, count: 6)), budget: budget, compression: true)
        }
    }

    // MARK: Protocol errors

    @Test func unmaskedClientFrame_isRejected() {
        #expect(throws: WebSocketError.unmaskedFrame) { try decode([0x81, 0x05] + hello) }
    }

    @Test(arguments: [0x20, 0x10, 0x40] as [UInt8])
    func reservedBits_areRejected_withoutAnExtension(rsv: UInt8) {
        #expect(throws: WebSocketError.reservedBitsSet) { try decode(ClientFrames.frame(0x1, hello, rsv: rsv)) }
    }

    @Test func rsv1_isAllowedOnlyOnTheFirstDataFrame_whenCompressionIsNegotiated() throws {
        #expect(try decode(ClientFrames.frame(0x1, hello, fin: false, rsv: 0x40), compression: true).first?.rsv1 == true)
        #expect(throws: WebSocketError.reservedBitsSet) { try decode(ClientFrames.frame(0x0, hello, rsv: 0x40), compression: true) }
        #expect(throws: WebSocketError.reservedBitsSet) { try decode(ClientFrames.frame(0x9, hello, rsv: 0x40), compression: true) }
        #expect(throws: WebSocketError.reservedBitsSet) { try decode(ClientFrames.frame(0x1, hello, rsv: 0x20), compression: true) }
    }

    @Test(arguments: [0x3, 0x4, 0x5, 0x6, 0x7, 0xB, 0xC, 0xD, 0xE, 0xF] as [UInt8])
    func reservedOpcodes_areRejected(opcode: UInt8) {
        #expect(throws: WebSocketError.reservedOpcode(opcode)) { try decode(ClientFrames.frame(opcode, hello)) }
    }

    @Test func controlFrame_isRejected_whenOver125Octets() {
        #expect(throws: WebSocketError.controlFrameTooLong) { try decode(ClientFrames.frame(0x9, Array(repeating: 0, count: 126))) }
        #expect(throws: WebSocketError.controlFrameTooLong) { try decode(ClientFrames.frame(0x9, Array(repeating: 0, count: 126), length: .sixtyFour)) }
    }

    @Test func shortControlFrame_isAccepted_withANonMinimalLength() throws {
        #expect(try decode(ClientFrames.frame(0x8, [0x03, 0xE8], length: .sixteen)) == [WebSocketFrame(opcode: .close, payload: [0x03, 0xE8])])
    }

    @Test func controlFrameOfExactly125Octets_isAccepted() throws {
        #expect(try decode(ClientFrames.frame(0x9, Array(repeating: 0, count: 125))).count == 1)
    }

    @Test func fragmentedControlFrame_isRejected() {
        #expect(throws: WebSocketError.fragmentedControlFrame) { try decode(ClientFrames.frame(0x9, hello, fin: false)) }
    }

    @Test func decoder_staysFailed_afterAnError() throws {
        var decoder = WebSocketFrameDecoder()
        #expect(throws: WebSocketError.unmaskedFrame) { try decoder.decode([0x81, 0x00], budget: budget) }
        #expect(throws: WebSocketError.unmaskedFrame) { try decoder.decode(ClientFrames.text("ok"), budget: budget) }
    }

    @Test func decoder_failsOnTheSecondHeaderOctet_withoutWaitingForMore() {
        var decoder = WebSocketFrameDecoder()
        #expect(throws: WebSocketError.unmaskedFrame) { try decoder.decode([0x81, 0x7F], budget: budget) }
    }
}
