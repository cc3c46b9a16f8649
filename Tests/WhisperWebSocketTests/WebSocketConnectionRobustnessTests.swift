import Testing
@testable import WhisperWebSocket

/// Hostile and random input: the connection must never trap, must stop after closing, and
/// must decode the same stream the same way however the reads are cut.
@Suite struct WebSocketConnectionRobustnessTests {
    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
        mutating func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8(truncatingIfNeeded: next()) } }
    }

    @Test(arguments: [false, true])
    func connection_survivesRandomBytes_andGoesQuietAfterClosing(deflate: Bool) {
        var random = Random(state: deflate ? 7 : 11)
        let configuration = WebSocketConfiguration(maxMessageBytes: 4_096, deflate: deflate ? DeflateParameters() : nil, acceptsBinaryMessages: true)
        for _ in 0..<2_000 {
            var ws = WebSocketConnection(configuration: configuration, now: 0)
            var closed = false
            for read in 0..<4 {
                // Mostly plausible headers (masked, small lengths) so payload paths are reached too.
                var chunk = random.bytes(random.below(64))
                if !chunk.isEmpty && random.below(2) == 0 { chunk[0] = [0x81, 0xC1, 0x01, 0x80, 0x89, 0x88, 0x82][random.below(7)] }
                if chunk.count > 1 && random.below(2) == 0 { chunk[1] = 0x80 | UInt8(random.below(40)) }
                let actions = ws.receive(chunk, now: UInt64(read))
                #expect(!closed || actions.isEmpty)
                if actions.contains(where: { if case .close = $0 { true } else { false } }) { closed = true }
            }
        }
    }

    @Test func randomValidStream_decodesIdentically_underRandomCuts() {
        var random = Random(state: 3)
        var stream: [UInt8] = []
        var expected: [WebSocketAction] = []
        for _ in 0..<40 {
            let text = String(repeating: "é", count: random.below(200))
            let bytes = Array(text.utf8)
            if random.below(3) == 0 && bytes.count > 2 {
                let cut = random.below(bytes.count)  // may split a code point across fragments
                stream += ClientFrames.frame(0x1, Array(bytes[..<cut]), fin: false)
                stream += ClientFrames.ping([1, 2])
                expected.append(.send(WebSocketFrameEncoder.pong([1, 2])))
                stream += ClientFrames.frame(0x0, Array(bytes[cut...]))
            } else {
                stream += ClientFrames.frame(0x1, bytes)
            }
            expected.append(.deliverText(bytes))
        }
        for _ in 0..<50 {
            var ws = WebSocketConnection(now: 0)
            var actions: [WebSocketAction] = []
            var start = 0
            while start < stream.count {
                let end = min(stream.count, start + 1 + random.below(300))
                actions += ws.receive(stream[start..<end], now: 1)
                start = end
            }
            #expect(actions == expected)
        }
    }
}
