import Testing
@testable import WhisperProtocol

@Suite struct ErrorCodeTests {
    @Test func rawValues_areTheFrozenWireCodes() {
        #expect(ErrorCode.allCases.map(\.rawValue) == [
            "NOT_REGISTERED", "AUTH_FAILED", "INVALID_PAYLOAD", "INVALID_TIMESTAMP", "RATE_LIMITED",
            "USER_BANNED", "NOT_FOUND", "FORBIDDEN", "INTERNAL_ERROR",
        ])
    }

    @Test func everyCode_mapsToItsHTTPStatus() {
        #expect(ErrorCode.allCases.map(\.httpStatus) == [401, 401, 400, 400, 429, 403, 404, 403, 500])
    }
}
