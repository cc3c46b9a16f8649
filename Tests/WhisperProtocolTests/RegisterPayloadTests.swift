import Testing
@testable import WhisperProtocol

@Suite struct RegisterPayloadTests {
    static let device = "0F8FAD5B-D9CB-469F-A165-70867728950E"
    static let key = Base64.encode([UInt8](repeating: 1, count: 32))
    static let signature = Base64.encode([UInt8](repeating: 2, count: 64))

    static func begin(_ extra: [(String, JSONValue?)] = []) -> JSONObject {
        var payload: JSONObject = ["protocolVersion": 1, "cryptoVersion": 1, "deviceId": .string(device), "platform": "ios"]
        for (key, value) in extra { payload[key] = value }
        return payload
    }

    static func proof(_ extra: [(String, JSONValue?)] = []) -> JSONObject {
        var payload: JSONObject = [
            "protocolVersion": 1, "cryptoVersion": 1, "challengeId": "6ba7b810-9dad-11d1-80b4-00c04fd430c8",
            "deviceId": .string(device), "platform": "android", "encPublicKey": .string(key),
            "signPublicKey": .string(key), "signature": .string(signature),
        ]
        for (key, value) in extra { payload[key] = value }
        return payload
    }

    func error(_ body: () throws(PayloadError) -> Void) -> PayloadError? {
        do throws(PayloadError) {
            try body()
            return nil
        } catch {
            return error
        }
    }

    @Test func begin_parses_lowercasesTheDeviceID_andTreatsNullWhisperIDAsAbsent() throws {
        let parsed = try RegisterBeginPayload(parsing: Self.begin([("whisperId", .null)]))
        #expect(parsed.deviceId.string == Self.device.lowercased())
        #expect(parsed.whisperId == nil)
        #expect(parsed.platform == .ios)
        let recovery = try RegisterBeginPayload(parsing: Self.begin([("whisperId", "WSP-ABCD-EFGH-IJ54")]))
        #expect(recovery.whisperId?.string == "WSP-ABCD-EFGH-IJ54")
    }

    @Test(arguments: [
        ("whisperId", JSONValue.string("WSP-ABCD-EFGH-IJ55"), PayloadError.invalidWhisperID(field: "whisperId")),
        ("whisperId", .int(1), .wrongType(field: "whisperId", expected: .string)),
        ("platform", "web", .invalidValue(field: "platform")),
        ("deviceId", "abc", .invalidUUID(field: "deviceId")),
        ("protocolVersion", 2, .unsupportedVersion(field: "protocolVersion", expected: 1)),
        ("sessionToken", "x", .unknownField("sessionToken")),
    ])
    func begin_rejectsInvalidMembers(_ key: String, _ value: JSONValue, _ expected: PayloadError) {
        #expect(error { () throws(PayloadError) in _ = try RegisterBeginPayload(parsing: Self.begin([(key, value)])) } == expected)
    }

    @Test func proof_parses_withOptionalTokens() throws {
        let parsed = try RegisterProofPayload(parsing: Self.proof([("pushToken", "abc:DEF_1-2"), ("voipToken", .null)]), limits: .default)
        #expect(parsed.encPublicKey.count == 32 && parsed.signPublicKey.count == 32 && parsed.signature.count == 64)
        #expect(parsed.pushToken == "abc:DEF_1-2")
        #expect(parsed.voipToken == nil)
        #expect(parsed.platform == .android)
    }

    @Test(arguments: [
        ("encPublicKey", JSONValue.string(Base64.encode([UInt8](repeating: 1, count: 31))),
         PayloadError.wrongLength(field: "encPublicKey", expectedBytes: 32, actualBytes: 31)),
        ("signPublicKey", "@@@@", .invalidBase64(field: "signPublicKey")),
        ("signature", .string(Base64.encode([UInt8](repeating: 1, count: 65))),
         .wrongLength(field: "signature", expectedBytes: 64, actualBytes: 65)),
        ("challengeId", nil, .missingField("challengeId")),
        ("pushToken", "", .invalidValue(field: "pushToken")),
        ("voipToken", "tab\there", .invalidValue(field: "voipToken")),
        ("cryptoVersion", 1.0, .wrongType(field: "cryptoVersion", expected: .int)),
        ("extra", true, .unknownField("extra")),
    ] as [(String, JSONValue?, PayloadError)])
    func proof_rejectsInvalidMembers(_ key: String, _ value: JSONValue?, _ expected: PayloadError) {
        #expect(error { () throws(PayloadError) in _ = try RegisterProofPayload(parsing: Self.proof([(key, value)]), limits: .default) } == expected)
    }

    @Test func pushToken_atTheLimitIsAccepted_andOneByteMoreIsNot() throws {
        let limit = Limits.default.maxPushTokenBytes
        let atLimit = try RegisterProofPayload(parsing: Self.proof([("pushToken", .string(String(repeating: "a", count: limit)))]), limits: .default)
        #expect(atLimit.pushToken?.utf8.count == limit)
        let over = error { () throws(PayloadError) in
            _ = try RegisterProofPayload(parsing: Self.proof([("pushToken", .string(String(repeating: "a", count: limit + 1)))]), limits: .default)
        }
        #expect(over == .tooLarge(field: "pushToken", maxBytes: limit))
    }

    @Test func privilegedPayload_tokenAccess_andClosedCommonKeys() throws {
        func token(_ json: String) throws -> ArraySlice<UInt8>? {
            try PrivilegedPayload.sessionToken(in: JSONParser.parseFields(Array(json.utf8)))
        }
        #expect(try token(#"{"sessionToken":"t"}"#) == Array("t".utf8)[...])
        #expect(try token(#"{"sessionToken":"a\/b"}"#) == Array("a/b".utf8)[...])
        #expect(try token(#"{"sessionToken":null}"#) == nil)
        #expect(try token("{}") == nil)
        let numeric = try JSONParser.parseFields(Array(#"{"sessionToken":1}"#.utf8))
        #expect(error { () throws(PayloadError) in _ = try PrivilegedPayload.sessionToken(in: numeric) }
                    == .wrongType(field: "sessionToken", expected: .string))
        #expect(error { () throws(PayloadError) in
            try PrivilegedPayload.requireOnlyCommonKeys(["protocolVersion": 1, "cryptoVersion": 1, "sessionToken": "t", "x": 1] as JSONObject)
        } == .unknownField("x"))
    }
}
