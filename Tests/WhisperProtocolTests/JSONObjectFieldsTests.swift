import Testing
@testable import WhisperProtocol

@Suite struct JSONObjectFieldsTests {
    static let payload: JSONObject = [
        "s": "x", "i": 5, "b": true, "n": nil, "o": [:], "a": [],
        "nonce": "AAECAwQFBgcICQoLDA0ODxAREhMUFRYX",
        "short": "AAECAwQFBgcICQoLDA0ODxAREhMUFQ==",
        "bad": "AAECAwQFBgcICQoLDA0ODxAREhMUFRY",
        "uuid": "3F2504E0-4F89-11D3-9A0C-0305E82C3301",
        "wid": "WSP-ABCD-EFGH-IJ54", "wid_lower": "wsp-abcd-efgh-ij54",
        "gid": "grp-3f2504e0-4f89-11d3-9a0c-0305e82c3301",
    ]

    func error<T>(_ body: () throws -> T) -> PayloadError? {
        do {
            _ = try body()
            return nil
        } catch {
            return error as? PayloadError
        }
    }

    @Test func typedAccessors_returnValuesOfTheirKind() throws {
        let p = Self.payload
        #expect(try p.requireString("s") == "x")
        #expect(try p.requireInt64("i") == 5)
        #expect(try p.requireBool("b"))
        #expect(try p.requireObject("o").isEmpty)
        #expect(try p.requireArray("a").isEmpty)
        #expect(try p.optionalString("s") == "x")
        #expect(try p.optionalString("n") == nil)
        #expect(try p.optionalString("absent") == nil)
        #expect(try p.optionalInt64("i") == 5)
    }

    @Test func typedAccessors_nameTheField_onError() {
        let p = Self.payload
        #expect(error { try p.requireString("absent") } == .missingField("absent"))
        #expect(error { try p.requireString("i") } == .wrongType(field: "i", expected: .string))
        #expect(error { try p.requireInt64("s") } == .wrongType(field: "s", expected: .int))
        #expect(error { try p.optionalString("i") } == .wrongType(field: "i", expected: .string))
        #expect(error { try p.requireString("n") } == .wrongType(field: "n", expected: .string))
        #expect(PayloadError.missingField("to").message == "to is required")
    }

    @Test func base64Fields_mustDecodeToTheExactLength() {
        let p = Self.payload
        #expect((try? p.requireBase64("nonce", exactByteCount: 24)) == Array(0..<24))
        #expect(error { try p.requireBase64("short", exactByteCount: 24) }
            == .wrongLength(field: "short", expectedBytes: 24, actualBytes: 22))
        #expect(error { try p.requireBase64("bad", exactByteCount: 24) } == .invalidBase64(field: "bad"))
        #expect(error { try p.requireBase64("nonce", exactByteCount: 32) }
            == .wrongLength(field: "nonce", expectedBytes: 32, actualBytes: 24))
        #expect(error { try p.requireBase64("i", exactByteCount: 24) } == .wrongType(field: "i", expected: .string))
    }

    @Test func base64LengthCheck_holdsAtNAndNPlusOne() throws {
        let p = Self.payload
        #expect(try p.requireBase64Length("nonce", maxByteCount: 24) == 24)
        #expect(error { try p.requireBase64Length("nonce", maxByteCount: 23) } == .tooLarge(field: "nonce", maxBytes: 23))
        #expect(error { try p.requireBase64Length("bad", maxByteCount: 100) } == .invalidBase64(field: "bad"))
    }

    @Test func textCiphertextLimit_is8016DecodedBytes() throws {
        let max = Limits.default.maxTextCiphertextBytes
        let atLimit: JSONObject = ["ciphertext": .string(Base64.encode([UInt8](repeating: 7, count: max)))]
        let overLimit: JSONObject = ["ciphertext": .string(Base64.encode([UInt8](repeating: 7, count: max + 1)))]
        #expect(try atLimit.requireBase64Length("ciphertext", maxByteCount: max) == 8_016)
        #expect(error { try overLimit.requireBase64Length("ciphertext", maxByteCount: max) }
            == .tooLarge(field: "ciphertext", maxBytes: 8_016))
    }

    @Test func idFields_areValidatedAndNormalised() throws {
        let p = Self.payload
        #expect(try p.requireUUID("uuid").string == "3f2504e0-4f89-11d3-9a0c-0305e82c3301")
        #expect(try p.requireWhisperID("wid").string == "WSP-ABCD-EFGH-IJ54")
        #expect(try p.requireGroupID("gid").uuid.string == "3f2504e0-4f89-11d3-9a0c-0305e82c3301")
        #expect(error { try p.requireUUID("s") } == .invalidUUID(field: "s"))
        #expect(error { try p.requireWhisperID("wid_lower") } == .invalidWhisperID(field: "wid_lower"))
        #expect(error { try p.requireGroupID("uuid") } == .invalidGroupID(field: "uuid"))
    }

    @Test func optionalUUID_treatsAbsentAndNullAsNone_andValidatesTheRest() throws {
        let p = Self.payload
        #expect(try p.optionalUUID("uuid")?.string == "3f2504e0-4f89-11d3-9a0c-0305e82c3301")
        #expect(try p.optionalUUID("n") == nil)
        #expect(try p.optionalUUID("absent") == nil)
        #expect(error { try p.optionalUUID("s") } == .invalidUUID(field: "s"))
        #expect(error { try p.optionalUUID("i") } == .wrongType(field: "i", expected: .string))
    }

    @Test func timestamp_isANonNegativeInteger() throws {
        let zero: JSONObject = ["t": 0], max: JSONObject = ["t": .int(Int64.max)]
        let negative: JSONObject = ["t": -1], fraction: JSONObject = ["t": 1.0], empty: JSONObject = [:]
        #expect(try zero.requireTimestamp("t") == 0)
        #expect(try max.requireTimestamp("t") == Int64.max)
        #expect(error { try negative.requireTimestamp("t") } == .outOfRange(field: "t"))
        #expect(error { try fraction.requireTimestamp("t") } == .wrongType(field: "t", expected: .int))
        #expect(error { try empty.requireTimestamp("t") } == .missingField("t"))
    }
}
