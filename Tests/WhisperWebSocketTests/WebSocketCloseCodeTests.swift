import Testing
@testable import WhisperWebSocket

@Suite struct WebSocketCloseCodeTests {
    @Test(arguments: [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 3000, 3999, 4000, 4001, 4999] as [UInt16])
    func codesAPeerMaySend_areValid(code: UInt16) {
        #expect(WebSocketCloseCode(rawValue: code).isValidOnWire)
    }

    @Test(arguments: [0, 999, 1004, 1005, 1006, 1012, 1015, 1016, 1100, 2000, 2999, 5000, 65535] as [UInt16])
    func reservedAndUnassignedCodes_areInvalid(code: UInt16) {
        #expect(!WebSocketCloseCode(rawValue: code).isValidOnWire)
    }

    @Test func everyError_mapsToItsCloseCode() {
        let cases: [(WebSocketError, UInt16)] = [
            (.unmaskedFrame, 1002), (.reservedBitsSet, 1002), (.reservedOpcode(3), 1002),
            (.fragmentedControlFrame, 1002), (.controlFrameTooLong, 1002), (.invalidPayloadLength, 1002),
            (.unexpectedContinuation, 1002), (.expectedContinuation, 1002), (.invalidClosePayload, 1002),
            (.invalidCloseCode(999), 1002), (.invalidUTF8, 1007), (.invalidCompressedData, 1007),
            (.messageTooBig, 1009), (.unsupportedData, 1003), (.compressionFailure, 1011),
        ]
        for (error, code) in cases { #expect(error.closeCode.rawValue == code, "\(error)") }
    }
}
