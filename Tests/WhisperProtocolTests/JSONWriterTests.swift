import Testing
@testable import WhisperProtocol

@Suite struct JSONWriterTests {
    func written(_ build: (inout JSONWriter) -> Void) -> String {
        var writer = JSONWriter()
        build(&writer)
        return text(writer.bytes)
    }

    @Test func commas_separateMembersAndElements_atEveryLevel() {
        let json = written { w in
            w.beginObject()
            w.member("a", Int64(1))
            w.key("b")
            w.beginArray()
            w.int(1)
            w.beginObject()
            w.endObject()
            w.beginArray()
            w.endArray()
            w.string("x")
            w.endArray()
            w.member("c", true)
            w.key("d")
            w.null()
            w.endObject()
        }
        #expect(json == #"{"a":1,"b":[1,{},[],"x"],"c":true,"d":null}"#)
    }

    @Test(arguments: [
        ("plain", #""plain""#),
        ("quote\"backslash\\slash/", #""quote\"backslash\\slash/""#),
        ("\u{08}\u{0C}\n\r\t", #""\b\f\n\r\t""#),
        ("\u{00}\u{01}\u{1F}", #""\u0000\u0001\u001f""#),
        ("\u{7F}é€👍", "\"\u{7F}é€👍\""),
        ("\u{2028}", "\"\u{2028}\""),
        ("", #""""#),
    ])
    func strings_escapeOnlyWhatRFC8259Requires(_ input: String, _ expected: String) {
        #expect(written { $0.string(input) } == expected)
    }

    @Test func keys_areEscapedToo() {
        #expect(written { w in w.beginObject(); w.member("a\"b", "c"); w.endObject() } == #"{"a\"b":"c"}"#)
    }

    @Test(arguments: [
        (Int64(0), "0"), (7, "7"), (-7, "-7"), (10, "10"), (1_730_000_000_000, "1730000000000"),
        (.max, "9223372036854775807"), (.min, "-9223372036854775808"),
    ])
    func integers_areWrittenInDecimal(_ value: Int64, _ expected: String) {
        #expect(written { $0.int(value) } == expected)
    }

    @Test(arguments: [
        (0.1, "0.1"), (1.0, "1.0"), (-0.0, "-0.0"), (1e16, "1e+16"), (1e-7, "1e-07"), (5e-324, "5e-324"),
        (1.7976931348623157e308, "1.7976931348623157e+308"), (0.30000000000000004, "0.30000000000000004"),
    ])
    func doubles_areWrittenInShortestRoundTripForm(_ value: Double, _ expected: String) throws {
        var writer = JSONWriter()
        try writer.double(value)
        #expect(text(writer.bytes) == expected)
        #expect(try JSONParser.parse(writer.bytes).doubleValue?.bitPattern == value.bitPattern)
    }

    @Test func nonFiniteDoubles_areRejected() {
        for value in [Double.nan, .infinity, -.infinity] {
            var writer = JSONWriter()
            #expect(throws: JSONError(.nonFiniteNumber, at: 0)) { try writer.double(value) }
            #expect(writer.bytes.isEmpty)
        }
    }

    @Test func rawBytes_areSplicedAsOneValue() {
        let source = Array(#"{"c":"QUJD","n":[1, 2]}"#.utf8)
        let json = written { w in
            w.beginObject()
            w.member("a", raw: source[5..<11])
            w.key("b")
            w.raw(Array("[1, 2]".utf8))
            w.endObject()
        }
        #expect(json == #"{"a":"QUJD","b":[1, 2]}"#)
    }

    @Test func writtenValues_parseBackEqual() throws {
        let value: JSONValue = [
            "type": "message_received",
            "payload": ["s": "é\n\"\u{1}👍", "i": -42, "d": 2.5, "a": [true, false, nil, [], [:]]],
        ]
        var writer = JSONWriter()
        try writer.value(value)
        #expect(try JSONParser.parse(writer.bytes) == value)
        #expect(value.description == text(writer.bytes))
    }

    @Test func everyScalar_roundTripsThroughEscaping() throws {
        // All of U+0000–U+00FF plus samples from each UTF-8 length class.
        var scalars = (0...0xFF).compactMap(Unicode.Scalar.init)
        scalars += [0x7FF, 0x800, 0xD7FF, 0xE000, 0xFFFD, 0xFFFF, 0x10000, 0x1F44D, 0x10FFFF].compactMap(Unicode.Scalar.init)
        var string = ""
        string.unicodeScalars.append(contentsOf: scalars)
        var writer = JSONWriter()
        writer.string(string)
        #expect(try JSONParser.parse(writer.bytes) == .string(string))
    }

    @Test func memberOverloads_writeTheExpectedTypes() throws {
        let json = written { w in
            w.beginObject()
            w.member("s", "x")
            w.member("o", nil as String?)
            w.member("i", Int64(3))
            w.member("b", false)
            w.member("l", strings: ["a", "b"])
            w.endObject()
        }
        #expect(json == #"{"s":"x","o":null,"i":3,"b":false,"l":["a","b"]}"#)
    }
}
