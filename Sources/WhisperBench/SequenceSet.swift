/// A growable bit set of message sequence numbers: one bit per message, so a run of millions
/// of messages costs a few hundred KB to check for loss and duplicates.
struct SequenceSet: Sendable, Equatable {
    private var words: [UInt64] = []
    private(set) var count = 0

    /// True when `sequence` was not yet in the set.
    @discardableResult
    mutating func insert(_ sequence: UInt64) -> Bool {
        let (word, bit) = Self.position(sequence)
        if word >= words.count { words.append(contentsOf: repeatElement(0, count: word - words.count + 1)) }
        let mask: UInt64 = 1 << bit
        guard words[word] & mask == 0 else { return false }
        words[word] |= mask
        count += 1
        return true
    }

    func contains(_ sequence: UInt64) -> Bool {
        let (word, bit) = Self.position(sequence)
        return word < words.count && words[word] & (1 << bit) != 0
    }

    /// How many members of `self` are missing from `other`.
    func countMissing(from other: SequenceSet) -> Int {
        var missing = 0
        for (i, word) in words.enumerated() {
            let theirs = i < other.words.count ? other.words[i] : 0
            missing += (word & ~theirs).nonzeroBitCount
        }
        return missing
    }

    private static func position(_ sequence: UInt64) -> (word: Int, bit: UInt64) {
        // Sequences are small (a counter per phone); the clamp only keeps a corrupt id from
        // asking for an absurd allocation — it then simply reads as a foreign message.
        (Int(truncatingIfNeeded: min(sequence, 1 << 40) >> 6), sequence & 63)
    }
}
