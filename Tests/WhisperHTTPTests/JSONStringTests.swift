import Testing
@testable import WhisperHTTP

@Suite struct JSONStringTests {
    @Test func quotesAndBackslashes_areEscaped() {
        #expect(JSONString.quoted(#"a"b\c"#) == #""a\"b\\c""#)
    }

    @Test func commonControls_useShortEscapes() {
        #expect(JSONString.quoted("\u{8}\u{c}\n\r\t") == #""\b\f\n\r\t""#)
    }

    @Test func otherControls_useUnicodeEscapes() {
        #expect(JSONString.quoted("\u{0}\u{1}\u{1f}") == #""\u0000\u0001\u001f""#)
    }

    @Test func nonASCII_andSlashAndDEL_passThrough() {
        #expect(JSONString.quoted("é/✓\u{7f}😀") == "\"é/✓\u{7f}😀\"")
    }

    @Test func everyControlCharacter_isEscaped() {
        for scalar in 0..<0x20 {
            let text = String(Character(Unicode.Scalar(UInt8(scalar))))
            let quoted = JSONString.quoted(text)
            #expect(quoted.hasPrefix("\"\\"), "U+\(scalar)")
            #expect(!quoted.unicodeScalars.contains { $0.value < 0x20 }, "U+\(scalar)")
        }
    }
}
