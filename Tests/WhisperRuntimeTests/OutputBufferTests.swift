import Testing
@testable import WhisperRuntime

/// The output queue, whatever its storage policy: every byte leaves once, in order, across
/// partial writes and flushes.
@Suite struct OutputBufferTests {
    /// Drains with a writer that takes at most `step` bytes per call, as a full socket does.
    private static func drain(_ buffer: inout OutputBuffer, step: Int, into written: inout [UInt8]) {
        while !buffer.isEmpty {
            let result = try? buffer.drain { raw in
                let n = min(step, raw.count)
                written.append(contentsOf: raw[..<n])
                return .done(n)
            }
            guard case .done? = result else { return }
        }
    }

    @Test(arguments: [false, true])
    func bytesLeaveOnceInOrder_acrossPartialWritesAndFlushes(keepsCapacity: Bool) {
        var buffer = OutputBuffer()
        buffer.keepsCapacity = keepsCapacity
        var queued: [UInt8] = []
        var written: [UInt8] = []
        for round in 0..<5 {
            let whole = (0..<(100 + round * 37)).map { UInt8(truncatingIfNeeded: $0 &+ round) }
            let backing = [UInt8](repeating: 0xEE, count: 3) + whole + [0xEE]
            buffer.append(whole)
            buffer.append(backing[3..<(3 + whole.count)])
            queued += whole + whole
            Self.drain(&buffer, step: 61, into: &written)
            #expect(buffer.isEmpty && buffer.pendingCount == 0)
        }
        #expect(written == queued)
    }

    @Test func aLargeBacklog_isCompactedWhileDraining() {
        var buffer = OutputBuffer()
        buffer.keepsCapacity = true
        let frame = (0..<200_000).map { UInt8(truncatingIfNeeded: $0) }
        buffer.append(frame)
        var written: [UInt8] = []
        Self.drain(&buffer, step: 70_000, into: &written)
        #expect(written == frame)
    }
}
