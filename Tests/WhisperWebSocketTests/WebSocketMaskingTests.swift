import Testing
@testable import WhisperWebSocket

@Suite struct WebSocketMaskingTests {
    @Test func hello_isMasked_likeTheRFC6455Section5Point7Example() {
        var bytes = Array("Hello".utf8)
        WebSocketMasking.apply(ClientFrames.key, to: &bytes, range: 0..<5, keyOffset: 0)
        #expect(bytes == [0x7F, 0x9F, 0x4D, 0x51, 0x58])
    }

    @Test func piecewiseUnmasking_equalsUnmaskingAtOnce_atAnyOffset() {
        let original = (0..<100).map { UInt8(truncatingIfNeeded: $0 &* 37) }
        var whole = original
        WebSocketMasking.apply(ClientFrames.key, to: &whole, range: 0..<100, keyOffset: 0)
        for cut in [1, 3, 4, 7, 8, 9, 50, 99] {
            var pieces = original
            WebSocketMasking.apply(ClientFrames.key, to: &pieces, range: 0..<cut, keyOffset: 0)
            WebSocketMasking.apply(ClientFrames.key, to: &pieces, range: cut..<100, keyOffset: cut)
            #expect(pieces == whole, "cut at \(cut)")
        }
        WebSocketMasking.apply(ClientFrames.key, to: &whole, range: 0..<100, keyOffset: 0)
        #expect(whole == original)
    }
}
