import Testing
@testable import WhisperProtocol

@Suite struct MessageKindTests {
    @Test func rawValues_areTheWireNames() {
        #expect(MessageKind.allCases.map(\.rawValue) == ["text", "image", "voice", "file", "system"])
    }

    @Test func onlyTextAndSystem_haveTheTextCiphertextCap() {
        #expect(MessageKind.allCases.filter(\.hasTextCiphertextCap) == [.text, .system])
    }

    @Test func require_rejectsOtherStrings_andNonStrings() {
        #expect(MessageFixture.error { () throws(PayloadError) in _ = try MessageKind.require(in: ["msgType": "Text"] as JSONObject) }
                    == .invalidValue(field: "msgType"))
        #expect(MessageFixture.error { () throws(PayloadError) in _ = try MessageKind.require(in: ["msgType": 1] as JSONObject) }
                    == .wrongType(field: "msgType", expected: .string))
    }
}
