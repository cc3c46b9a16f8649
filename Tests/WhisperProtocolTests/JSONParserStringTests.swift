import Testing
@testable import WhisperProtocol

@Suite struct JSONParserStringTests {
    @Test func everySimpleEscape_decodes() throws {
        #expect(try parseJSON(#""\"\\\/\b\f\n\r\t""#) == .string("\"\\/\u{08}\u{0C}\n\r\t"))
    }

    @Test func unicodeEscapes_decode_inAnyHexCase() throws {
        #expect(try parseJSON(#""\u0041\u00e9\u00E9\u20AC\u0000""#) == .string("Aéé€\u{0}"))
    }

    @Test func surrogatePairs_decode() throws {
        #expect(try parseJSON(#""\uD83D\uDC4D""#) == .string("👍"))
        #expect(try parseJSON(#""\ud834\udd1e x""#) == .string("𝄞 x"))
        #expect(try parseJSON(#""\uDBFF\uDFFF""#) == .string("\u{10FFFF}"))
    }

    @Test(arguments: [
        #""\uD83D""#, #""\uD83Dx""#, #""\uD83D\u0041""#, #""\uDC4D""#, #""\uDC4D\uD83D""#,
        #""\uD83D\uD83D""#, #""\uD83D\n""#,
    ])
    func loneSurrogates_areRejected(_ input: String) {
        #expect(jsonError(input)?.kind == .loneSurrogate, "\(input)")
    }

    @Test(arguments: [#""\u12""#, #""\u12G4""#, #""\u""#, #""\U0041""#])
    func malformedUnicodeEscapes_areRejected(_ input: String) {
        let kind = jsonError(input)?.kind
        #expect(kind == .invalidUnicodeEscape || kind == .invalidEscape, "\(input)")
    }

    @Test(arguments: [#""\a""#, #""\x41""#, #""\'""#, #""\0""#, #""\ ""#])
    func unknownEscapes_areRejected(_ input: String) {
        #expect(jsonError(input)?.kind == .invalidEscape)
    }

    @Test func unescapedControlCharacters_areRejected() {
        for byte in UInt8(0)..<0x20 {
            #expect(jsonError([0x22, byte, 0x22])?.kind == .controlCharacterInString)
            // Also after an escape has moved parsing to the slow path, and deep in a long string.
            #expect(jsonError(Array(#""\n"#.utf8) + [byte, 0x22])?.kind == .controlCharacterInString)
            #expect(jsonError([0x22] + Array(repeating: 0x61, count: 37) + [byte, 0x22])?.kind == .controlCharacterInString)
        }
    }

    @Test func deleteAndNonASCII_areAcceptedUnescaped() throws {
        #expect(try parseJSON("\"\u{7F}é€👍\"") == .string("\u{7F}é€👍"))
    }

    @Test func unterminatedStrings_areRejected() {
        #expect(jsonError(#""abc"#)?.kind == .unexpectedEnd)
        #expect(jsonError(#""abc\"#)?.kind == .unexpectedEnd)
        #expect(jsonError(#""a\"bc"#)?.kind == .unexpectedEnd)
        #expect(jsonError(#""\u00"#)?.kind == .invalidUnicodeEscape)
    }

    static let invalidUTF8: [[UInt8]] = [
        [0x80],                    // lone continuation byte
        [0xBF],
        [0xC0, 0x80],              // overlong NUL
        [0xC1, 0xBF],              // overlong
        [0xC3],                    // truncated 2-byte sequence
        [0xC3, 0x41],
        [0xE0, 0x80, 0x80],        // overlong 3-byte
        [0xE2, 0x82],              // truncated
        [0xED, 0xA0, 0x80],        // UTF-8-encoded surrogate U+D800
        [0xED, 0xBF, 0xBF],        // U+DFFF
        [0xF0, 0x80, 0x80, 0x80],  // overlong 4-byte
        [0xF4, 0x90, 0x80, 0x80],  // above U+10FFFF
        [0xF5, 0x80, 0x80, 0x80],
        [0xFE], [0xFF],
    ]

    @Test(arguments: invalidUTF8)
    func invalidUTF8_isRejected(_ sequence: [UInt8]) {
        #expect(jsonError([0x22] + sequence + [0x22])?.kind == .invalidUTF8)
        // Fast path (long run) and slow path (after an escape), and in keys.
        #expect(jsonError([0x22] + Array(repeating: 0x61, count: 20) + sequence + [0x22])?.kind == .invalidUTF8)
        #expect(jsonError(Array(#""\t"#.utf8) + sequence + [0x22])?.kind == .invalidUTF8)
        #expect(jsonError([0x7B, 0x22] + sequence + Array(#"":1}"#.utf8))?.kind == .invalidUTF8)
    }

    @Test func invalidUTF8_isRejected_outsideStrings() {
        #expect(jsonError([0x5B, 0xC3, 0xA9, 0x5D]) != nil)
    }

    @Test func validMultiByteBoundaries_areAccepted() throws {
        let cases: [([UInt8], String)] = [
            ([0xC2, 0x80], "\u{80}"), ([0xDF, 0xBF], "\u{7FF}"), ([0xE0, 0xA0, 0x80], "\u{800}"),
            ([0xED, 0x9F, 0xBF], "\u{D7FF}"), ([0xEE, 0x80, 0x80], "\u{E000}"), ([0xEF, 0xBF, 0xBF], "\u{FFFF}"),
            ([0xF0, 0x90, 0x80, 0x80], "\u{10000}"), ([0xF4, 0x8F, 0xBF, 0xBF], "\u{10FFFF}"),
        ]
        for (sequence, expected) in cases {
            #expect(try JSONParser.parse([0x22] + sequence + [0x22]) == .string(expected))
        }
    }

    @Test func longStrings_takeTheWordAtATimePathCorrectly() throws {
        // Place the terminating quote at every offset modulo 8 and mix in a multi-byte character.
        for length in 0..<40 {
            let body = String(repeating: "x", count: length) + "é"
            #expect(try parseJSON("\"" + body + "\"") == .string(body))
            #expect(try parseJSON("\"" + body + #"\n""#) == .string(body + "\n"))
        }
    }

    @Test func wordScan_detectsSpecialBytes_atEveryLane() {
        for lane in 0..<8 {
            for special: UInt8 in [0x22, 0x5C, 0x00, 0x1F, 0x80, 0xFF] {
                var word = [UInt8](repeating: 0x61, count: 8)
                word[lane] = special
                let value = word.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
                #expect(JSONScanner.hasSpecialOrNonASCIIByte(value))
            }
        }
        let clean: [UInt8] = [0x20, 0x21, 0x23, 0x5B, 0x5D, 0x7E, 0x7F, 0x41]
        #expect(!JSONScanner.hasSpecialOrNonASCIIByte(clean.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }))
    }
}
