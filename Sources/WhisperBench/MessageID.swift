import WhisperProtocol

/// The messageId the benchmark puts on every message, a UUID-shaped text the server accepts
/// (any version) and echoes as sent, which carries where the message came from:
///
/// ```
/// rrrrrrrr-ssss-ssss-qqqq-qqqqqqqqqqqq
/// run (32) stream (32)  sequence (64)
/// ```
///
/// `run` tells this run's messages from leftovers of an earlier one in the same queue,
/// `stream` is the sending phone, `sequence` counts its messages from 0 — so a receiver
/// finds loss and duplicates with a bit set per stream instead of a set of strings.
struct MessageID: Hashable, Sendable {
    var run: UInt32
    var stream: UInt32
    var sequence: UInt64

    var text: String {
        var bytes = [UInt8](repeating: UInt8(ascii: "-"), count: 36)
        func put(_ value: UInt64, nibbles: Int, at offset: Int) {
            for i in 0..<nibbles {
                bytes[offset + i] = Hex.digit(UInt8(truncatingIfNeeded: value >> UInt64(4 * (nibbles - 1 - i))))
            }
        }
        put(UInt64(run), nibbles: 8, at: 0)
        put(UInt64(stream >> 16), nibbles: 4, at: 9)
        put(UInt64(stream & 0xFFFF), nibbles: 4, at: 14)
        put(sequence >> 48, nibbles: 4, at: 19)
        put(sequence & 0xFFFF_FFFF_FFFF, nibbles: 12, at: 24)
        return String(decoding: bytes, as: UTF8.self)
    }

    init(run: UInt32, stream: UInt32, sequence: UInt64) {
        self.run = run
        self.stream = stream
        self.sequence = sequence
    }

    /// Reads an id in the layout above (either case); nil for anything else, e.g. a
    /// message some other client sent.
    init?(text: String) {
        let utf8 = Array(text.utf8)
        guard utf8.count == 36, utf8[8] == UInt8(ascii: "-"), utf8[13] == UInt8(ascii: "-"),
              utf8[18] == UInt8(ascii: "-"), utf8[23] == UInt8(ascii: "-") else { return nil }
        func hex(_ range: Range<Int>) -> UInt64? {
            var value: UInt64 = 0
            for i in range {
                guard let nibble = Hex.value(ofDigit: utf8[i]) else { return nil }
                value = value << 4 | UInt64(nibble)
            }
            return value
        }
        guard let run = hex(0..<8), let streamHigh = hex(9..<13), let streamLow = hex(14..<18),
              let sequenceHigh = hex(19..<23), let sequenceLow = hex(24..<36) else { return nil }
        self.run = UInt32(truncatingIfNeeded: run)
        stream = UInt32(truncatingIfNeeded: streamHigh << 16 | streamLow)
        sequence = sequenceHigh << 48 | sequenceLow
    }
}
