import Testing
import WhisperProtocol

@Suite struct JSONStringTests {
    @Test func quoted_escapesQuotesAndBackslashes() {
        #expect(JSONString.quoted(#"a"b\c"#) == #""a\"b\\c""#)
    }

    @Test func quoted_usesShortEscapes_forCommonControls() {
        #expect(JSONString.quoted("\u{8}\u{c}\n\r\t") == #""\b\f\n\r\t""#)
    }

    @Test func quoted_usesUnicodeEscapes_forOtherControls() {
        #expect(JSONString.quoted("\u{0}\u{1}\u{1f}") == #""\u0000\u0001\u001f""#)
    }

    @Test func quoted_passesNonASCIISlashAndDELThrough() {
        #expect(JSONString.quoted("é/✓\u{7f}😀\u{2028}") == "\"é/✓\u{7f}😀\u{2028}\"")
    }

    @Test func quoted_escapesEveryControlCharacter() {
        for scalar in 0..<0x20 {
            let text = String(Character(Unicode.Scalar(UInt8(scalar))))
            let quoted = JSONString.quoted(text)
            #expect(quoted.hasPrefix("\"\\"), "U+\(scalar)")
            #expect(!quoted.unicodeScalars.contains { $0.value < 0x20 }, "U+\(scalar)")
        }
    }

    @Test func quoted_escapesDELAndLineSeparators_whenJavaScriptSafe() {
        #expect(JSONString.quoted("a\u{7f}b\u{2028}c\u{2029}d\"\n", escaping: .javaScriptSafe)
            == #""a\u007fb\u2028c\u2029d\"\n""#)
    }

    @Test func quoted_keepsOtherE2Characters_whenJavaScriptSafe() {
        // U+2027 (E2 80 A7), U+202A (E2 80 AA) and € (E2 82 AC) share the lead byte only.
        #expect(JSONString.quoted("\u{2027}\u{202A}€ ✓", escaping: .javaScriptSafe) == "\"\u{2027}\u{202A}€ ✓\"")
    }

    @Test func appendQuoted_appendsToWhatIsThere() {
        var out = Array("x=".utf8)
        JSONString.appendQuoted("a\tb", to: &out)
        #expect(String(decoding: out, as: UTF8.self) == #"x="a\tb""#)
    }
}
