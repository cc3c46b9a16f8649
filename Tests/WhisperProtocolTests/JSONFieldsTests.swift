import Testing
@testable import WhisperProtocol

/// The span scan of the hot frames: it must accept and reject exactly what the tree parser does,
/// read the same values, and hand out the sender's bytes without decoding them.
@Suite struct JSONFieldsTests {
    private func fields(_ json: String, limits: JSONLimits = .frame) throws -> JSONFields {
        try JSONParser.parseFields(Array(json.utf8), limits: limits)
    }

    private func outcomes(_ json: String, limits: JSONLimits = .frame) -> (tree: Result<JSONObject, JSONError>, fields: Result<JSONObject, JSONError>) {
        let bytes = Array(json.utf8)
        return (Result { () throws(JSONError) in try JSONParser.parseObject(bytes, limits: limits) },
                Result { () throws(JSONError) in try JSONParser.parseFields(bytes, limits: limits).object })
    }

    @Test(arguments: [
        #"{}"#,
        #"{"a":"x","b":1,"c":-2.5e3,"d":true,"e":null,"f":[1,{"g":"h"}],"i":{"j":"k"}}"#,
        #" { "esc" : "a\"b\\c\/d\u00e9\ud83d\ude00" , "plain":"tökén" } "#,
        #"{"long":"0123456789abcdef0123456789abcdef0123456789abcdef"}"#,
    ])
    func validObjects_readTheSameAsTheTree(_ json: String) throws {
        let (tree, scanned) = outcomes(json)
        let object = try tree.get()
        let built = try scanned.get()
        #expect(built == object)
        #expect(built.members.map(\.valueSpan) == object.members.map(\.valueSpan))
    }

    @Test(arguments: [
        "", "[]", "1", #""s""#, "{", #"{"a"}"#, #"{"a":}"#, #"{"a":"x",}"#, #"{"a":"x"} x"#,
        #"{"a":"x","a":"y"}"#, #"{"a":"\x"}"#, #"{"a":"\ud800"}"#, "{\"a\":\"\u{01}\"}",
        #"{"a":01}"#, #"{"a":[1,]}"#, #"{"a":{"b":1,"b":2}}"#, #"{"a":tru}"#,
    ])
    func invalidInput_isRejectedWithTheTreesError(_ json: String) {
        let (tree, scanned) = outcomes(json)
        guard case .failure(let expected) = tree, case .failure(let actual) = scanned else {
            Issue.record("\(json): tree \(tree), fields \(scanned)")
            return
        }
        #expect(actual == expected)
    }

    @Test func invalidUTF8_isRejectedLikeTheTree() {
        let bytes: [UInt8] = Array(#"{"a":""#.utf8) + [0xC0, 0x80] + Array(#""}"#.utf8)
        #expect(throws: JSONError.self) { try JSONParser.parseFields(bytes) }
        #expect(throws: JSONError.self) { try JSONParser.parseObject(bytes) }
    }

    @Test func limits_holdLikeTheTree() {
        var limits = JSONLimits.frame
        limits.maxStringBytes = 4
        let (tree, scanned) = outcomes(#"{"a":"12345"}"#, limits: limits)
        guard case .failure(let expected) = tree, case .failure(let actual) = scanned else {
            Issue.record("a 5-byte string passed a 4-byte limit")
            return
        }
        #expect(expected.kind == .stringTooLong)
        #expect(actual == expected)
        #expect((try? fields(#"{"a":"1234"}"#, limits: limits)) != nil)
    }

    @Test func stringBytes_areTheFramesOwnBytes_orTheDecodedValue() throws {
        let json = #"{"plain":"abc+/=","escaped":"a\/b","n":1}"#
        let scanned = try fields(json)
        let plain = try #require(scanned.stringBytes(forKey: "plain"))
        #expect(Array(plain) == Array("abc+/=".utf8))
        #expect(plain.startIndex == json.utf8.count - #"abc+/=","escaped":"a\/b","n":1}"#.utf8.count)
        #expect(scanned.stringBytes(forKey: "escaped").map(Array.init) == Array("a/b".utf8))
        #expect(scanned.raw(forKey: "escaped").map(Array.init) == Array(#""a\/b""#.utf8))
        #expect(scanned.stringBytes(forKey: "n") == nil)
        #expect(scanned.stringBytes(forKey: "missing") == nil)
        #expect(scanned["escaped"] == "a/b")
        #expect(scanned["n"] == 1)
    }

    @Test func requireStringBytes_namesTheField() throws {
        let scanned = try fields(#"{"n":1}"#)
        #expect(throws: PayloadError.missingField("s")) { try scanned.requireStringBytes("s") }
        #expect(throws: PayloadError.wrongType(field: "n", expected: .string)) { try scanned.requireStringBytes("n") }
    }

    @Test func base64Fields_areCheckedOnTheBytes() throws {
        let scanned = try fields(#"{"nonce":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA","short":"AAAA","bad":"A*==","c":"aGVsbG8="}"#)
        #expect(try scanned.requireBase64("nonce", exactByteCount: 24) == [UInt8](repeating: 0, count: 24))
        #expect(throws: PayloadError.wrongLength(field: "short", expectedBytes: 24, actualBytes: 3)) {
            try scanned.requireBase64("short", exactByteCount: 24)
        }
        #expect(throws: PayloadError.invalidBase64(field: "bad")) { try scanned.requireBase64("bad", exactByteCount: 24) }
        let (text, count) = try scanned.requireBase64Text("c", maxByteCount: 5)
        #expect(Array(text) == Array("aGVsbG8=".utf8) && count == 5)
        #expect(throws: PayloadError.tooLarge(field: "c", maxBytes: 4)) { try scanned.requireBase64Text("c", maxByteCount: 4) }
    }
}
