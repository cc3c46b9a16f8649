import Testing
@testable import WhisperProtocol

@Suite struct ReceiptStatusTests {
    @Test func rawValues_areTheWireNames() {
        #expect(ReceiptStatus.allCases.map(\.rawValue) == ["delivered", "read"])
    }

    @Test func require_readsTheStatusMember() throws {
        #expect(try ReceiptStatus.require(in: ["status": "read"]) == .read)
        #expect(MessageFixture.error { () throws(PayloadError) in _ = try ReceiptStatus.require(in: ["status": "READ"]) }
                    == .invalidValue(field: "status"))
        #expect(MessageFixture.error { () throws(PayloadError) in _ = try ReceiptStatus.require(in: [:]) } == .missingField("status"))
    }
}
