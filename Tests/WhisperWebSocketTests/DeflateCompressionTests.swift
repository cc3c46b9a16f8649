import Testing
@testable import WhisperWebSocket

@Suite struct DeflateCompressionTests {
    let hello = Array("Hello".utf8)

    @Test func hello_compressesToTheRFC7692ExampleBytes() {
        let compressor = DeflateCompressor(parameters: DeflateParameters())
        #expect(compressor.compress(hello) == [0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00])
    }

    @Test func rfc7692ExampleBytes_decompress() throws {
        let decompressor = DeflateDecompressor(parameters: DeflateParameters())
        #expect(try decompressor.decompressMessage([0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00], limit: 100) == hello)
    }

    @Test func secondMessage_decompresses_whenItReusesTheWindow() throws {
        // RFC 7692 §7.2.3.2: the second "Hello" refers back into the first.
        let decompressor = DeflateDecompressor(parameters: DeflateParameters())
        #expect(try decompressor.decompressMessage([0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00], limit: 100) == hello)
        #expect(try decompressor.decompressMessage([0xF2, 0x00, 0x11, 0x00, 0x00], limit: 100) == hello)
    }

    @Test func storedBlockAndFinalBlock_decompress() throws {
        // RFC 7692 §7.2.3.3 (no compression) and §7.2.3.4 (BFINAL set).
        let decompressor = DeflateDecompressor(parameters: DeflateParameters())
        #expect(try decompressor.decompressMessage([0x00, 0x05, 0x00, 0xFA, 0xFF, 0x48, 0x65, 0x6C, 0x6C, 0x6F, 0x00], limit: 100) == hello)
        #expect(try decompressor.decompressMessage([0xF3, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00, 0x00], limit: 100) == hello)
        #expect(try decompressor.decompressMessage([0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00], limit: 100) == hello)
    }

    @Test func messages_roundTrip_withContextTakeover_andRepeatsShrink() throws {
        let parameters = DeflateParameters()
        let compressor = DeflateCompressor(parameters: parameters)
        let decompressor = DeflateDecompressor(parameters: parameters)
        let message = Array(String(repeating: "{\"type\":\"send_message\",\"payload\":{}} ", count: 20).utf8)
        let first = compressor.compress(message) ?? []
        let second = compressor.compress(message) ?? []
        #expect(second.count < first.count)  // the second refers back into the first
        #expect(try decompressor.decompressMessage(first, limit: 10_000) == message)
        #expect(try decompressor.decompressMessage(second, limit: 10_000) == message)
    }

    @Test func messages_roundTrip_withoutContextTakeover_eachStandingAlone() throws {
        let parameters = DeflateParameters(serverNoContextTakeover: true, clientNoContextTakeover: true)
        let compressor = DeflateCompressor(parameters: parameters)
        let message = Array("no context takeover, no context takeover".utf8)
        let first = compressor.compress(message) ?? []
        let second = compressor.compress(message) ?? []
        #expect(first == second)
        // A fresh decompressor can read the second message alone.
        #expect(try DeflateDecompressor(parameters: parameters).decompressMessage(second, limit: 1_000) == message)
        let decompressor = DeflateDecompressor(parameters: parameters)
        #expect(try decompressor.decompressMessage(first, limit: 1_000) == message)
        #expect(try decompressor.decompressMessage(second, limit: 1_000) == message)
    }

    @Test(arguments: [8, 9, 12, 15])
    func messages_roundTrip_withASmallerServerWindow(bits: Int) throws {
        let parameters = DeflateParameters(serverMaxWindowBits: bits)
        let compressor = DeflateCompressor(parameters: parameters)
        let decompressor = DeflateDecompressor(parameters: parameters)
        let message = (0..<5_000).map { UInt8(truncatingIfNeeded: ($0 * 31) % 251) }
        for _ in 0..<3 {
            #expect(try decompressor.decompressMessage(compressor.compress(message) ?? [], limit: 10_000) == message)
        }
    }

    @Test func emptyAndIncompressibleMessages_roundTrip() throws {
        let parameters = DeflateParameters()
        let compressor = DeflateCompressor(parameters: parameters)
        let decompressor = DeflateDecompressor(parameters: parameters)
        #expect(compressor.compress([]) == [0x00])  // RFC 7692 §7.2.3.6
        var state: UInt32 = 12345
        let noise = (0..<70_000).map { _ -> UInt8 in
            state = state &* 1_103_515_245 &+ 12_345
            return UInt8(truncatingIfNeeded: state >> 16)
        }
        for message in [[], noise, [], hello] {
            #expect(try decompressor.decompressMessage(compressor.compress(message) ?? [], limit: 100_000) == message)
        }
    }

    @Test func emptyCompressedPayload_isAnEmptyMessage() throws {
        let decompressor = DeflateDecompressor(parameters: DeflateParameters())
        #expect(try decompressor.decompressMessage([], limit: 10) == [])
        #expect(try decompressor.decompressMessage([0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00], limit: 10) == hello)
    }

    @Test func decompressionBomb_stopsAtTheCap() throws {
        let bomb = DeflateCompressor(parameters: DeflateParameters()).compress([UInt8](repeating: 0, count: 10_000_000)) ?? []
        #expect(bomb.count < 20_000)
        let decompressor = DeflateDecompressor(parameters: DeflateParameters())
        var output: [UInt8] = []
        #expect(throws: WebSocketError.messageTooBig) { try decompressor.decompress(bomb, into: &output, limit: 512_000) }
        #expect(output.count <= 512_001)
    }

    @Test func outputOfExactlyTheCap_isAccepted() throws {
        let message = [UInt8](repeating: 7, count: 4_096)
        let compressed = DeflateCompressor(parameters: DeflateParameters()).compress(message) ?? []
        #expect(try DeflateDecompressor(parameters: DeflateParameters()).decompressMessage(compressed, limit: 4_096) == message)
        #expect(throws: WebSocketError.messageTooBig) {
            try DeflateDecompressor(parameters: DeflateParameters()).decompressMessage(compressed, limit: 4_095)
        }
    }

    @Test func corruptCompressedData_isRejected() {
        let decompressor = DeflateDecompressor(parameters: DeflateParameters())
        #expect(throws: WebSocketError.invalidCompressedData) { try decompressor.decompressMessage([0xFF, 0xFF, 0xFF, 0xFF], limit: 100) }
    }
}
