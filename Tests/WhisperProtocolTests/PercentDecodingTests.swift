import Testing
import WhisperProtocol

@Suite struct PercentDecodingTests {
    @Test func decode_readsEscapesOfEitherCase_andKeepsPlus() {
        #expect(PercentDecoding.decode("a%2Fb%2fc+d") == "a/b/c+d")
        #expect(PercentDecoding.decode("caf%C3%A9") == "café")
        #expect(PercentDecoding.decode("plain") == "plain")
        #expect(PercentDecoding.decode("") == "")
    }

    @Test func decode_readsBytes_likeText() {
        #expect(PercentDecoding.decode(Array("p%40ss%3Aword".utf8)[...]) == "p@ss:word")
        #expect(PercentDecoding.decodeBytes("%00%ff".utf8) == [0x00, 0xFF])
    }

    @Test(arguments: ["%", "%4", "a%", "%zz", "%4g", "%g4", "100%"])
    func decode_returnsNil_whenAnEscapeIsMalformed(_ text: String) {
        #expect(PercentDecoding.decode(text) == nil)
        #expect(PercentDecoding.decode(Array(text.utf8)) == nil)
    }

    @Test func decode_returnsNil_whenTheBytesAreNotUTF8() {
        #expect(PercentDecoding.decode("%C3") == nil)
        #expect(PercentDecoding.decode("%FF") == nil)
        #expect(PercentDecoding.decodeBytes("%FF".utf8) == [0xFF])
    }

    @Test(arguments: [("/a%20b?c=%7E", true), ("/", true), ("/%", false), ("/%2", false), ("/%2x", false),
                      ("/100%25", true), ("/a%", false)] as [(String, Bool)])
    func isWellFormed_checksEveryEscape(_ target: String, _ expected: Bool) {
        let result = Array(target.utf8).withUnsafeBytes { PercentDecoding.isWellFormed($0) }
        #expect(result == expected)
    }
}
