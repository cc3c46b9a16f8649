import CZlib
import Testing
@testable import WhisperWebSocket

/// Checks the promise behind answering `server_max_window_bits=8` while zlib deflates with 9:
/// a peer inflating with a 256-octet window must decode everything we send.
@Suite struct DeflateWindowTests {
    /// Inflates a sequence of messages (each with the 00 00 FF FF tail restored) through one
    /// raw inflater whose window is `windowBits`, as a strict 256-octet-window client would.
    func inflate(_ messages: [[UInt8]], windowBits: Int32) -> [[UInt8]]? {
        var stream = z_stream()
        guard whisper_inflateInit2(&stream, -windowBits) == Z_OK else { return nil }
        defer { inflateEnd(&stream) }
        var results: [[UInt8]] = []
        for message in messages {
            var input = message + [0x00, 0x00, 0xFF, 0xFF]
            var output = [UInt8](repeating: 0, count: 1 << 20)
            let code = input.withUnsafeMutableBufferPointer { inBuffer in
                output.withUnsafeMutableBufferPointer { outBuffer in
                    stream.next_in = inBuffer.baseAddress
                    stream.avail_in = UInt32(inBuffer.count)
                    stream.next_out = outBuffer.baseAddress
                    stream.avail_out = UInt32(outBuffer.count)
                    return CZlib.inflate(&stream, Z_SYNC_FLUSH)
                }
            }
            guard code == Z_OK, stream.avail_in == 0 else { return nil }
            results.append(Array(output[..<(output.count - Int(stream.avail_out))]))
        }
        return results
    }

    /// `count` octets with no short-range repeats (a linear congruential sequence).
    func noise(_ count: Int, seed: UInt32) -> [UInt8] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 1_103_515_245 &+ 12_345
            return UInt8(truncatingIfNeeded: state >> 16)
        }
    }

    /// Regression: an empty message right after a non-empty one used to compress to zero octets,
    /// which a strict peer (Python's websockets) inflates as a broken stored block.
    @Test func emptyMessageBetweenOthers_inflates_inAStrictPeer() {
        let compressor = DeflateCompressor(parameters: DeflateParameters())
        let messages: [[UInt8]] = [Array("hello".utf8), [], Array("x".utf8), [], [], Array("hello again".utf8)]
        let compressed = messages.map { compressor.compress($0) ?? [] }
        #expect(inflate(compressed, windowBits: 15) == messages)
    }

    @Test func outputForWindow8_inflates_withA256OctetWindow() {
        let compressor = DeflateCompressor(parameters: DeflateParameters(serverMaxWindowBits: 8))
        // Repeats at distances from 1 to 1000 octets, so a too-far reference would show.
        var messages: [[UInt8]] = []
        for period in [3, 100, 255, 256, 300, 600, 1_000] {
            let unit = noise(period, seed: UInt32(period))
            messages.append(Array(repeating: unit, count: 4_000 / period + 2).flatMap { $0 })
        }
        let compressed = messages.map { compressor.compress($0) ?? [] }
        #expect(inflate(compressed, windowBits: 8) == messages)
    }

    @Test func outputForWindow15_needsALargerWindow() {
        // Control: a 32 KiB window does reach further back than 256 octets.
        let compressor = DeflateCompressor(parameters: DeflateParameters(serverMaxWindowBits: 15))
        let unit = noise(1_000, seed: 7)
        let message = unit + unit
        #expect(compressor.compress(message).map { $0.count < 1_500 } == true)
        #expect(inflate([compressor.compress(message) ?? []], windowBits: 8) == nil)
    }
}
