import Testing
import WhisperProtocol
@testable import WhisperBench

struct MessageIDTests {
    @Test func text_isACanonicalUUID_thatReadsBack() {
        let id = MessageID(run: 0xDEAD_BEEF, stream: 0x0001_0002, sequence: 0x0003_0000_0000_0004)
        #expect(id.text == "deadbeef-0001-0002-0003-000000000004")
        #expect(CanonicalUUID.isValid(id.text))
        #expect(MessageID(text: id.text) == id)
        #expect(MessageID(text: id.text.uppercased()) == id, "the server may echo any case")
    }

    @Test func extremes_roundTrip() {
        for id in [MessageID(run: 0, stream: 0, sequence: 0), MessageID(run: .max, stream: .max, sequence: .max)] {
            #expect(MessageID(text: id.text) == id)
        }
    }

    @Test func otherTexts_areNotOurs() {
        #expect(MessageID(text: "deadbeef-0001-0002-0003-00000000000") == nil)
        #expect(MessageID(text: "deadbeef-0001-0002-0003-00000000000g") == nil)
        #expect(MessageID(text: "deadbeef00001-0002-0003-000000000004") == nil)
    }
}
