import Testing
@testable import WhisperStorage

@Suite("RingBuffer (no server)")
struct RingBufferTests {
    @Test func popsInAppendOrder_acrossCompactions() {
        var buffer = RingBuffer<Int>()
        var expected = 0
        for round in 0..<5 {
            for i in 0..<3000 { buffer.append(round * 3000 + i) }
            for _ in 0..<2000 {
                #expect(buffer.popFirst() == expected)
                expected += 1
            }
        }
        #expect(buffer.count == 5000)
        while let value = buffer.popFirst() {
            #expect(value == expected)
            expected += 1
        }
        #expect(buffer.isEmpty)
        #expect(buffer.first == nil)
    }
}
