import Testing
@testable import WhisperProtocol

@Suite struct PendingCursorTests {
    @Test(arguments: ["0-0", "1-2", "1763820000000-0", "1763820000000-17", "18446744073709551615-18446744073709551615"])
    func canonicalText_roundTrips(_ text: String) throws {
        let cursor = try #require(PendingCursor(text))
        #expect(cursor.text == text)
        #expect(PendingCursor(milliseconds: cursor.milliseconds, sequence: cursor.sequence) == cursor)
        #expect(PendingCursor(cursor.text) == cursor)
    }

    @Test func leadingZeros_areAccepted_upToTwentyDigits_andWrittenInCanonicalForm() throws {
        let cursor = try #require(PendingCursor("00000000000000000001-007"))
        #expect(cursor == PendingCursor(milliseconds: 1, sequence: 7))
        #expect(cursor.text == "1-7")
    }

    @Test(arguments: [
        "", "1", "1-", "-1", "-", "--", "a-b", "1-b", "+1-2", "1-+2", "-1-2", "1--2", "1-2-3", " 1-2", "1-2 ", "1 -2",
        "1.5-2", "0x1-2", "１-2",
        "18446744073709551616-0", "0-18446744073709551616",   // UInt64.max + 1
        "99999999999999999999-0",                             // 20 digits, too large
        "000000000000000000001-0", "0-000000000000000000001", // 21 digits
        "123456789012345678901234567890-1",
    ])
    func invalidText_isRejected_withoutTrapping(_ text: String) {
        #expect(PendingCursor(text) == nil)
    }

    @Test func cursors_orderByMillisecondsThenSequence() {
        let a = PendingCursor(milliseconds: 1, sequence: 9)
        let b = PendingCursor(milliseconds: 2, sequence: 0)
        let c = PendingCursor(milliseconds: 2, sequence: 1)
        #expect(a < b && b < c && !(c < a))
        #expect([c, a, b].sorted() == [a, b, c])
    }

    @Test func successor_isTheNextStreamID_andNilAfterTheLast() {
        #expect(PendingCursor(milliseconds: 5, sequence: 1).successor == PendingCursor(milliseconds: 5, sequence: 2))
        #expect(PendingCursor(milliseconds: 5, sequence: .max).successor == PendingCursor(milliseconds: 6, sequence: 0))
        #expect(PendingCursor(milliseconds: .max, sequence: .max).successor == nil)
    }
}
