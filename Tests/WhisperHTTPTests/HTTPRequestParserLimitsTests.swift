import Testing
@testable import WhisperHTTP

@Suite struct HTTPRequestParserLimitsTests {
    /// A head of exactly `size` bytes: "GET / HTTP/1.1\r\nHost: h\r\nX: <pad>\r\n\r\n".
    static func head(ofSize size: Int) -> String {
        let fixed = "GET / HTTP/1.1\r\nHost: h\r\nX: \r\n\r\n"
        return "GET / HTTP/1.1\r\nHost: h\r\nX: " + String(repeating: "a", count: size - fixed.utf8.count) + "\r\n\r\n"
    }

    @Test func headAtLimit_passes_andOneMoreByte_is431() {
        let limits = HTTPLimits(maxHeaderBytes: 200)
        #expect(Self.head(ofSize: 200).utf8.count == 200)
        #expect(request(parseOne(Self.head(ofSize: 200), limits: limits)) != nil)
        #expect(parseError(Self.head(ofSize: 201), limits: limits) == .headTooLarge)
    }

    @Test func defaultHeadLimit_is16KiB() {
        #expect(request(parseOne(Self.head(ofSize: 16 * 1024))) != nil)
        #expect(parseError(Self.head(ofSize: 16 * 1024 + 1)) == .headTooLarge)
    }

    @Test func oversizedHead_isRejectedBeforeItEnds() {
        var parser = HTTPRequestParser(limits: HTTPLimits(maxHeaderBytes: 64))
        parser.feed(bytes("GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: 45)))
        #expect(parser.next().isNeedMoreData) // exactly 64 bytes so far
        parser.feed([UInt8(ascii: "a")])
        #expect(parser.next() == .error(.headTooLarge))
    }

    @Test func headerCountAtLimit_passes_andOneMore_is431() {
        let limits = HTTPLimits(maxHeaderCount: 5)
        let four = (1...4).map { "X-\($0): v\r\n" }.joined()
        #expect(request(parseOne("GET / HTTP/1.1\r\nHost: h\r\n\(four)\r\n", limits: limits)) != nil)
        #expect(parseError("GET / HTTP/1.1\r\nHost: h\r\n\(four)X-5: v\r\n\r\n", limits: limits) == .tooManyHeaders)
        #expect(HTTPParseError.tooManyHeaders.statusCode == 431)
    }

    @Test func bodyAtCap_passes() {
        let results = parseAll("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\n0123456789", bodyLimit: 10)
        #expect(request(results[0])?.body.count == 10)
    }

    @Test func bodyOverCap_is413_beforeAnyBodyByteArrives() {
        var parser = HTTPRequestParser()
        parser.feed(bytes("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\n"))
        #expect(parser.next(bodyLimit: { _ in 10 }) == .error(.bodyTooLarge(limit: 10)))
        #expect(HTTPParseError.bodyTooLarge(limit: 10).statusCode == 413)
    }

    @Test func bodyLimit_isChosenPerRequestFromItsHead() {
        var parser = HTTPRequestParser()
        parser.feed(bytes("POST /small HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabc"
            + "POST /big HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabc"))
        let cap: (HTTPRequestHead) -> Int = { $0.path == "/small" ? 2 : 3 }
        #expect(parser.next(bodyLimit: cap) == .error(.bodyTooLarge(limit: 2)))

        var other = HTTPRequestParser()
        other.feed(bytes("POST /big HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabc"))
        #expect(request(other.next(bodyLimit: cap))?.body == bytes("abc"))
    }

    @Test func defaultBodyCap_is1MiB() {
        #expect(HTTPLimits().defaultMaxBodyBytes == 1_048_576)
        #expect(parseError("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1048577\r\n\r\n") == .bodyTooLarge(limit: 1_048_576))
        #expect(parseOne("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1048576\r\n\r\n").isNeedMoreData)
    }
}
