import Testing
@testable import WhisperProtocol

@Suite struct ProtocolVersionTests {
    func check(_ payload: JSONObject) -> PayloadError? {
        do {
            try ProtocolVersion.check(payload)
            return nil
        } catch {
            return error
        }
    }

    @Test func versionOne_isAccepted_forBoth() {
        #expect(check(["protocolVersion": 1, "cryptoVersion": 1]) == nil)
    }

    static let invalid: [(JSONObject, PayloadError)] = [
        (["cryptoVersion": 1], .missingField("protocolVersion")),
        (["protocolVersion": 1], .missingField("cryptoVersion")),
        (["protocolVersion": 2, "cryptoVersion": 1], .unsupportedVersion(field: "protocolVersion", expected: 1)),
        (["protocolVersion": 1, "cryptoVersion": 0], .unsupportedVersion(field: "cryptoVersion", expected: 1)),
        (["protocolVersion": 1.0, "cryptoVersion": 1], .wrongType(field: "protocolVersion", expected: .int)),
        (["protocolVersion": "1", "cryptoVersion": 1], .wrongType(field: "protocolVersion", expected: .int)),
        (["protocolVersion": 1, "cryptoVersion": nil], .wrongType(field: "cryptoVersion", expected: .int)),
    ]

    @Test(arguments: invalid)
    func missingWrongTypeOrUnknownVersions_areRejected(_ payload: JSONObject, _ expected: PayloadError) {
        let error = check(payload)
        #expect(error == expected)
        #expect(error?.code == .invalidPayload)
    }

    @Test func messages_areHumanReadable() {
        #expect(check(["protocolVersion": 1.0, "cryptoVersion": 1])?.message == "protocolVersion must be an integer")
        #expect(check(["protocolVersion": 3, "cryptoVersion": 1])?.message == "protocolVersion must be 1")
    }
}
