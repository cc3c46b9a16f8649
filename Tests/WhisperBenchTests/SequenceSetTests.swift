import Testing
@testable import WhisperBench

struct SequenceSetTests {
    @Test func insert_reportsNewMembers_andCounts() {
        var set = SequenceSet()
        let first = set.insert(0), second = set.insert(1_000), again = set.insert(1_000)
        #expect(first && second && !again)
        #expect(set.count == 2)
        #expect(set.contains(1_000) && !set.contains(999) && !set.contains(1 << 30))
    }

    @Test func countMissing_isTheDifference() {
        var accepted = SequenceSet(), received = SequenceSet()
        for i in 0..<200 { accepted.insert(UInt64(i)) }
        for i in 0..<200 where i != 63 && i != 64 && i != 199 { received.insert(UInt64(i)) }
        received.insert(500)
        #expect(accepted.countMissing(from: received) == 3)
        #expect(received.countMissing(from: accepted) == 1)
        #expect(SequenceSet().countMissing(from: accepted) == 0)
    }
}
