import Testing
import WhisperProtocol

@Suite struct HexTests {
    @Test func encode_writesTwoLowerCaseDigitsPerByte() {
        #expect(Hex.encode([]) == "")
        #expect(Hex.encode([0x00, 0x0F, 0xA5, 0xFF]) == "000fa5ff")
    }

    @Test func decode_readsEitherCase() {
        #expect(Hex.decode("000fA5fF") == [0x00, 0x0F, 0xA5, 0xFF])
        #expect(Hex.decode("") == [])
        #expect(Hex.decode(Array("c0de".utf8)[...]) == [0xC0, 0xDE])
    }

    @Test(arguments: ["0", "abc", "0g", "g0", " 0", "+f", "-1", "0x"])
    func decode_returnsNil_whenNotEvenHexDigits(_ text: String) {
        #expect(Hex.decode(text) == nil)
    }

    @Test func decode_roundTripsEncode_forEveryByte() {
        let bytes = (0...255).map { UInt8($0) }
        #expect(Hex.decode(Hex.encode(bytes)) == bytes)
    }

    @Test func valueOfDigit_readsHexDigits_andRefusesTheRest() {
        for byte in UInt8.min...UInt8.max {
            let expected = UInt8(String(decoding: [byte], as: UTF8.self), radix: 16)
            #expect(Hex.value(ofDigit: byte) == expected, "\(byte)")
        }
    }

    @Test func digit_usesOnlyTheLowFourBits() {
        #expect((0..<16).map { Hex.digit(UInt8($0)) } == Array("0123456789abcdef".utf8))
        #expect(Hex.digit(0xFA) == UInt8(ascii: "a"))
    }
}
