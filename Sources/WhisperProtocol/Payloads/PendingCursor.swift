/// A position in a user's pending queue, handed to clients as `nextCursor` and taken back as
/// `fetch_pending.cursor`. Clients treat it as opaque; inside it is the Redis stream entry id of
/// the last message of the page, `<milliseconds>-<sequence>` (two unsigned decimal integers), so
/// the next page is the entries after it — stable while new messages arrive, since ids only grow.
///
/// Parsing never traps: each part is 1…20 ASCII digits (no sign, no `+`, no spaces) whose value
/// fits `UInt64`; anything else is `nil` (→ `INVALID_PAYLOAD` naming `cursor`). Leading zeros are
/// accepted (Redis accepts them too); `text` is always the canonical form without them.
public struct PendingCursor: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let milliseconds: UInt64
    public let sequence: UInt64

    /// `UInt64.max` has 20 digits.
    public static let maxDigitsPerPart = 20

    public init(milliseconds: UInt64, sequence: UInt64) {
        self.milliseconds = milliseconds
        self.sequence = sequence
    }

    public init?(_ text: String) {
        var first: UInt64?
        var value: UInt64 = 0
        var digits = 0
        for byte in text.utf8 {
            if byte == ASCII.minus {
                guard digits > 0, first == nil else { return nil }
                first = value
                value = 0
                digits = 0
                continue
            }
            guard ASCII.isDigit(byte), digits < Self.maxDigitsPerPart else { return nil }
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(byte &- ASCII.zero))
            guard !overflow1, !overflow2 else { return nil }
            value = sum
            digits += 1
        }
        guard digits > 0, let first else { return nil }
        milliseconds = first
        sequence = value
    }

    /// Canonical `ms-seq`, as Redis writes stream ids.
    public var text: String { "\(milliseconds)-\(sequence)" }

    public var description: String { text }

    /// The smallest id after this one (`nil` after the largest): an inclusive `XRANGE` start for
    /// "strictly after the cursor" on servers without the exclusive `(` syntax (Redis < 6.2).
    public var successor: PendingCursor? {
        if sequence < UInt64.max { return PendingCursor(milliseconds: milliseconds, sequence: sequence + 1) }
        if milliseconds < UInt64.max { return PendingCursor(milliseconds: milliseconds + 1, sequence: 0) }
        return nil
    }

    public static func < (lhs: PendingCursor, rhs: PendingCursor) -> Bool {
        (lhs.milliseconds, lhs.sequence) < (rhs.milliseconds, rhs.sequence)
    }
}
