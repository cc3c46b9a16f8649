import Testing
@testable import WhisperProtocol

@Suite struct JSONObjectTests {
    @Test func members_stayInSourceOrder() throws {
        let object = try #require(try parseJSON(#"{"z":1,"a":2,"m":3}"#).objectValue)
        #expect(object.keys == ["z", "a", "m"])
        #expect(object.map(\.key) == ["z", "a", "m"])
    }

    @Test func memberValues_recordTheirRawByteSpans() throws {
        let source = #"{ "s" : "a\u0041\n" , "n":-1.50e3,"o":{"x":[1, 2]},"b":true,"z":null }"#
        let bytes = Array(source.utf8)
        let object = try JSONParser.parseObject(bytes)
        func raw(_ key: String) -> String? {
            object.span(forKey: key).map { String(decoding: bytes[$0], as: UTF8.self) }
        }
        #expect(raw("s") == #""a\u0041\n""#)
        #expect(raw("n") == "-1.50e3")
        #expect(raw("o") == #"{"x":[1, 2]}"#)
        #expect(raw("b") == "true")
        #expect(raw("z") == "null")
        #expect(raw("missing") == nil)
        #expect(object["s"] == "aA\n")
    }

    @Test func nestedObjects_recordSpansInTheSameCoordinates() throws {
        let bytes = Array(#"{"payload":{"ciphertext":"QUJD"}}"#.utf8)
        let payload = try #require(try JSONParser.parseObject(bytes)["payload"]?.objectValue)
        let span = try #require(payload.span(forKey: "ciphertext"))
        #expect(String(decoding: bytes[span], as: UTF8.self) == #""QUJD""#)
    }

    @Test func subscriptSetter_replacesAppendsAndRemoves() {
        var object: JSONObject = ["a": 1, "b": 2]
        object["a"] = 10
        object["c"] = 3
        object["b"] = nil
        #expect(object.keys == ["a", "c"])
        #expect(object["a"] == 10)
    }

    @Test func replacedValue_forgetsItsSourceSpan() throws {
        var object = try JSONParser.parseObject(Array(#"{"a":1}"#.utf8))
        #expect(object.span(forKey: "a") == 5..<6)
        object["a"] = 2
        #expect(object.span(forKey: "a") == nil)
    }

    @Test func equality_isOrderSensitive_andIgnoresSpans() throws {
        let parsed = try JSONParser.parseObject(Array(#"{"a":1,"b":2}"#.utf8))
        #expect(parsed == ["a": 1, "b": 2])
        #expect(parsed != ["b": 2, "a": 1])
    }

    @Test func lookup_isByteExact() {
        let object: JSONObject = ["K": 1]
        #expect(object["\u{212A}"] == nil)
    }

    @Test func valueAccessors_matchOnlyTheirKind() throws {
        let value = try parseJSON(#"{"i":1,"d":1.0,"s":"x","b":false,"a":[],"o":{},"n":null}"#)
        #expect(value["i"]?.int64Value == 1)
        #expect(value["d"]?.int64Value == nil)
        #expect(value["d"]?.doubleValue == 1.0)
        #expect(value["i"]?.doubleValue == 1.0)
        #expect(value["s"]?.stringValue == "x")
        #expect(value["b"]?.boolValue == false)
        #expect(value["a"]?.arrayValue == [])
        #expect(value["o"]?.objectValue == JSONObject())
        #expect(value["n"]?.isNull == true)
        #expect(value["s"]?.int64Value == nil)
        #expect(value["i"]?.kind == .int)
    }
}
