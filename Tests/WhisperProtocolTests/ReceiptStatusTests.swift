import Testing
@testable import WhisperProtocol

@Suite struct ReceiptStatusTests {
    @Test func rawValues_areTheWireNames() {
        #expect(ReceiptStatus.allCases.map(\.rawValue) == ["delivered", "read"])
    }

    @Test func require_readsTheStatusMember() throws {
        #expect(try ReceiptStatus.require(in: ["status": "read"] as JSONObject) == .read)
        #expect(MessageFixture.error { () throws(PayloadError) in _ = try ReceiptStatus.require(in: ["status": "READ"] as JSONObject) }
                    == .invalidValue(field: "status"))
        #expect(MessageFixture.error { () throws(PayloadError) in _ = try ReceiptStatus.require(in: [:] as JSONObject) } == .missingField("status"))
    }
}
