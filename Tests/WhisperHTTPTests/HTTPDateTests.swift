import Testing
@testable import WhisperHTTP

@Suite struct HTTPDateTests {
    @Test(arguments: [
        (Int64(0), "Thu, 01 Jan 1970 00:00:00 GMT"),
        (784_111_777, "Sun, 06 Nov 1994 08:49:37 GMT"),
        (951_782_400, "Tue, 29 Feb 2000 00:00:00 GMT"),
        (1_795_000_000, "Wed, 18 Nov 2026 11:06:40 GMT"),
        (-1, "Wed, 31 Dec 1969 23:59:59 GMT"),
    ])
    func date_isFormattedAsIMFFixdate(seconds: Int64, expected: String) {
        #expect(HTTPDate.imfFixdate(secondsSince1970: seconds) == expected)
    }
}
