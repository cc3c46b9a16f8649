import Testing
@testable import WhisperProtocol

@Suite struct JSONParserTests {
    @Test func literalsAndContainers_parse() throws {
        #expect(try parseJSON("null") == .null)
        #expect(try parseJSON("true") == .bool(true))
        #expect(try parseJSON("false") == .bool(false))
        #expect(try parseJSON("[]") == .array([]))
        #expect(try parseJSON("{}") == .object(JSONObject()))
        #expect(try parseJSON(#"[1,"a",null,true,{"k":[]}]"#) == [1, "a", nil, true, ["k": []]])
    }

    @Test func scalars_areAccepted_atTopLevel() throws {
        // RFC 8259 §2: any value may be the top-level value.
        #expect(try parseJSON(#""x""#) == "x")
        #expect(try parseJSON("42") == 42)
    }

    @Test func fourWhitespaceBytes_areAllowed_aroundTokens() throws {
        #expect(try parseJSON(" \t\r\n{ \"a\" :\n[ 1 ,\t2 ] }\r\n") == ["a": [1, 2]])
    }

    @Test(arguments: [
        "\u{0C}{}",       // form feed is not JSON whitespace
        "{}\u{0B}",       // nor vertical tab
        "\u{A0}1",        // nor NBSP
    ])
    func otherWhitespace_isRejected(_ input: String) {
        #expect(jsonError(input) != nil)
    }

    @Test(arguments: [
        ("", JSONError.Kind.unexpectedEnd),
        ("   ", .unexpectedEnd),
        ("{", .unexpectedEnd),
        ("[1,", .unexpectedEnd),
        (#"{"a""#, .unexpectedEnd),
        (#"{"a":"#, .unexpectedEnd),
        ("[1 2]", .unexpectedByte(UInt8(ascii: "2"))),
        ("[1,]", .unexpectedByte(UInt8(ascii: "]"))),
        ("[,1]", .unexpectedByte(UInt8(ascii: ","))),
        (#"{"a":1,}"#, .unexpectedByte(UInt8(ascii: "}"))),
        (#"{"a" 1}"#, .unexpectedByte(UInt8(ascii: "1"))),
        ("{a:1}", .unexpectedByte(UInt8(ascii: "a"))),
        ("{'a':1}", .unexpectedByte(UInt8(ascii: "'"))),
        (#"{"a":1;"b":2}"#, .unexpectedByte(UInt8(ascii: ";"))),
        ("[1}", .unexpectedByte(UInt8(ascii: "}"))),
        ("tru", .invalidLiteral),
        ("True", .unexpectedByte(UInt8(ascii: "T"))),
        ("nul", .invalidLiteral),
        ("nulL", .invalidLiteral),
        ("undefined", .unexpectedByte(UInt8(ascii: "u"))),
    ])
    func malformedStructure_isRejected(_ input: String, _ kind: JSONError.Kind) {
        #expect(jsonError(input)?.kind == kind)
    }

    @Test(arguments: ["{} {}", "[1] x", "1 2", "truex", "null,", "{}}", #""a""b""#, "0x10"])
    func trailingGarbage_isRejected(_ input: String) {
        #expect(jsonError(input)?.kind == .trailingData)
    }

    @Test func trailingNulByte_isRejected() {
        #expect(jsonError(Array("{}".utf8) + [0])?.kind == .trailingData)
    }

    @Test func errors_reportTheOffsetOfTheProblem() {
        #expect(jsonError(#"{"a":[1,2,x]}"#)?.offset == 10)
    }

    // MARK: Depth

    static func nestedArrays(_ depth: Int) -> String {
        String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
    }

    static func nestedObjects(_ depth: Int) -> String {
        String(repeating: #"{"a":"#, count: depth - 1) + "{}" + String(repeating: "}", count: depth - 1)
    }

    @Test func nesting_isAccepted_atTheDepthLimit() throws {
        _ = try parseJSON(Self.nestedArrays(32))
        _ = try parseJSON(Self.nestedObjects(32))
    }

    @Test func nesting_isRejected_oneBeyondTheDepthLimit() {
        #expect(jsonError(Self.nestedArrays(33))?.kind == .depthLimitExceeded)
        #expect(jsonError(Self.nestedObjects(33))?.kind == .depthLimitExceeded)
    }

    @Test func depthLimit_isConfigurable() throws {
        let limits = JSONLimits(maxDepth: 2)
        _ = try parseJSON("[[1]]", limits: limits)
        #expect(jsonError("[[[1]]]", limits: limits)?.kind == .depthLimitExceeded)
    }

    @Test func deepNesting_failsCleanly_insteadOfOverflowingTheStack() {
        #expect(jsonError(Self.nestedArrays(100_000))?.kind == .depthLimitExceeded)
    }

    // MARK: Duplicate keys

    @Test func duplicateKeys_areRejected() {
        #expect(jsonError(#"{"to":"A","to":"B"}"#)?.kind == .duplicateKey("to"))
        #expect(jsonError(#"{"p":{"x":1,"y":2,"x":3}}"#)?.kind == .duplicateKey("x"))
    }

    @Test func duplicateKeys_areRejected_whenSpelledWithDifferentEscapes() {
        #expect(jsonError(#"{"from":1,"fr\u006fm":2}"#)?.kind == .duplicateKey("from"))
    }

    @Test func duplicateKeys_areRejected_inLargeObjects() {
        // Past 16 members the check switches to a hash set.
        let members = (0..<40).map { #""k\#($0)":\#($0)"# }
        let unique = "{" + members.joined(separator: ",") + "}"
        #expect(jsonError(unique) == nil)
        let duplicate = "{" + (members + [#""k3":0"#]).joined(separator: ",") + "}"
        #expect(jsonError(duplicate)?.kind == .duplicateKey("k3"))
    }

    @Test func canonicallyEquivalentButDifferentKeys_areDistinct() throws {
        // "K" and KELVIN SIGN (U+212A) are equal as Swift Strings, different as bytes.
        let value = try parseJSON(#"{"K":1,"\u212A":2}"#)
        #expect(value.objectValue?.count == 2)
        #expect(value["K"] == 1)
        #expect(value["\u{212A}"] == 2)
    }

    // MARK: Limits

    @Test func inputSizeLimit_holdsAtNAndNPlusOne() throws {
        let limits = JSONLimits(maxInputBytes: 10)
        _ = try parseJSON(#""12345678""#, limits: limits)
        #expect(jsonError(#""123456789""#, limits: limits)?.kind == .inputTooLarge)
    }

    @Test func stringSizeLimit_holdsAtNAndNPlusOne() throws {
        let limits = JSONLimits(maxStringBytes: 4)
        _ = try parseJSON(#"["abcd"]"#, limits: limits)
        #expect(jsonError(#"["abcde"]"#, limits: limits)?.kind == .stringTooLong)
        #expect(jsonError(#"{"abcde":1}"#, limits: limits)?.kind == .stringTooLong)
        // The limit is on decoded bytes: "\u00e9" is two bytes.
        _ = try parseJSON(#"["ab\u00e9"]"#, limits: limits)
        #expect(jsonError(#"["abc\u00e9"]"#, limits: limits)?.kind == .stringTooLong)
    }

    @Test func arrayElementLimit_holdsAtNAndNPlusOne() throws {
        let limits = JSONLimits(maxArrayElements: 3)
        _ = try parseJSON("[1,2,3]", limits: limits)
        #expect(jsonError("[1,2,3,4]", limits: limits)?.kind == .tooManyElements)
    }

    @Test func objectMemberLimit_holdsAtNAndNPlusOne() throws {
        let limits = JSONLimits(maxObjectMembers: 2)
        _ = try parseJSON(#"{"a":1,"b":2}"#, limits: limits)
        #expect(jsonError(#"{"a":1,"b":2,"c":3}"#, limits: limits)?.kind == .tooManyMembers)
    }

    // MARK: Entry points

    @Test func arraySlices_parse_withOffsetsFromTheSliceStart() throws {
        let bytes = Array(#"xx{"a":"b"}yy"#.utf8)
        let object = try JSONParser.parse(bytes[2..<11]).objectValue
        #expect(object?["a"] == "b")
        #expect(object?.span(forKey: "a") == 5..<8)
    }

    @Test func rawBuffers_parse() throws {
        let bytes = Array("[true]".utf8)
        let value = try bytes.withUnsafeBytes { raw in try JSONParser.parse(raw) }
        #expect(value == [true])
    }

    @Test func parseObject_rejectsOtherTopLevelValues() throws {
        #expect(try JSONParser.parseObject(Array(#"{"a":1}"#.utf8))["a"] == 1)
        #expect(throws: JSONError(.topLevelNotObject, at: 0)) { try JSONParser.parseObject(Array("[1]".utf8)) }
    }

    @Test func errorDescription_namesTheProblemAndOffset() {
        #expect(jsonError("[1,]")?.description == "unexpected byte 0x5D at byte 3")
    }
}
