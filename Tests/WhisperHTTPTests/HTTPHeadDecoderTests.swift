import Testing
@testable import WhisperHTTP

@Suite struct HTTPHeadDecoderTests {
    @Test(arguments: [
        "GET /\r\nHost: h\r\n\r\n",
        "GET  / HTTP/1.1\r\nHost: h\r\n\r\n",
        "GET / HTTP/1.1 \r\nHost: h\r\n\r\n",
        " GET / HTTP/1.1\r\nHost: h\r\n\r\n",
        "GET / HTTP/1.1 extra\r\nHost: h\r\n\r\n",
        "GET\r\nHost: h\r\n\r\n",
    ])
    func malformedRequestLine_is400(text: String) throws {
        let error = try #require(parseError(text))
        #expect(error.statusCode == 400)
    }

    @Test func nonTokenMethod_is400() {
        #expect(parseError("G(T / HTTP/1.1\r\nHost: h\r\n\r\n") == .invalidMethod)
    }

    @Test(arguments: [
        "*", "http://relay.example/health", "health", "/a#frag", "/a%zz", "/a%2", "/caf\u{e9}", "/a\u{7f}",
    ])
    func nonOriginFormTarget_is400(target: String) {
        #expect(parseError("OPTIONS \(target) HTTP/1.1\r\nHost: h\r\n\r\n") == .invalidTarget)
    }

    @Test(arguments: ["HTTP/2.0", "HTTP/1.2", "HTTP/0.9", "HTTP/3.0"])
    func unsupportedVersion_is505(version: String) {
        #expect(parseError("GET / \(version)\r\nHost: h\r\n\r\n") == .unsupportedVersion)
        #expect(HTTPParseError.unsupportedVersion.statusCode == 505)
    }

    @Test(arguments: ["HTTP/2", "http/1.1", "HTTP/1.10", "HTTP/x.1", "HTTQ/1.1"])
    func malformedVersion_is400(version: String) {
        #expect(parseError("GET / \(version)\r\nHost: h\r\n\r\n") == .invalidVersion)
    }

    @Test func http2Preface_is505() {
        #expect(parseError("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n") == .unsupportedVersion)
    }

    @Test(arguments: ["Host : h", "Bad Name: v", ": v", "NoColon", "X\u{7f}: v"])
    func malformedHeaderName_is400(line: String) {
        #expect(parseError("GET / HTTP/1.1\r\nHost: h\r\n\(line)\r\n\r\n") == .invalidHeaderName)
    }

    @Test func obsFold_is400() {
        #expect(parseError("GET / HTTP/1.1\r\nHost: h\r\nX-A: one\r\n two\r\n\r\n") == .obsoleteLineFolding)
        #expect(parseError("GET / HTTP/1.1\r\n\tHost: h\r\n\r\n") == .obsoleteLineFolding)
    }

    @Test(arguments: ["a\u{0}b", "a\u{1}b", "a\u{7f}b"])
    func controlCharacterInValue_is400(value: String) {
        #expect(parseError("GET / HTTP/1.1\r\nHost: h\r\nX: \(value)\r\n\r\n") == .invalidHeaderValue)
    }

    @Test func bareCRInValue_is400() {
        #expect(parseError("GET / HTTP/1.1\r\nHost: h\r\nX: a\rb\r\n\r\n") == .invalidLineEnding)
    }

    @Test(arguments: [
        "GET / HTTP/1.1\nHost: h\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: h\n\n",
        "GET / HTTP/1.1\r\nHost: h\r\n\n",
        "\nGET / HTTP/1.1\r\nHost: h\r\n\r\n",
    ])
    func bareLF_isRejected(text: String) {
        #expect(parseError(text) == .invalidLineEnding)
    }

    @Test func valueWhitespace_isTrimmed_andHTABAndObsTextKept() throws {
        let req = try #require(request(parseOne("GET / HTTP/1.1\r\nHost: h\r\nX:  \ta\tb \t\r\nY:caf\u{e9}\r\n\r\n")))
        #expect(req.headers["x"] == "a\tb")
        #expect(req.headers["y"] == "caf\u{e9}")
    }

    @Test(arguments: ["-1", "1 2", "+5", "5,5", "0x10", "", "99999999999999999999999999", "9223372036854775808"])
    func badContentLength_is400(value: String) {
        #expect(parseError("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: \(value)\r\n\r\n") == .invalidContentLength)
    }

    @Test func contentLengthAtIntMax_isRepresentable_then413() {
        #expect(parseError("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 9223372036854775807\r\n\r\n")
            == .bodyTooLarge(limit: 1_048_576))
    }

    @Test func duplicateContentLength_withSameValue_isAccepted_differentValues_is400() {
        let same = "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\ncontent-length: 2\r\n\r\nok"
        #expect(request(parseOne(same))?.body == bytes("ok"))
        #expect(parseError("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nok")
            == .invalidContentLength)
    }

    @Test(arguments: ["chunked", "gzip, chunked", "identity"])
    func transferEncoding_is501(value: String) {
        let error = parseError("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: \(value)\r\nContent-Length: 3\r\n\r\n")
        #expect(error == .transferEncodingNotSupported)
        #expect(error?.statusCode == 501)
    }

    @Test func http11_withoutHost_is400() {
        #expect(parseError("GET / HTTP/1.1\r\nAccept: */*\r\n\r\n") == .invalidHost)
    }

    @Test func twoHosts_orInvalidHost_is400() {
        #expect(parseError("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n") == .invalidHost)
        #expect(parseError("GET / HTTP/1.1\r\nHost: a/b\r\n\r\n") == .invalidHost)
        #expect(parseError("GET / HTTP/1.1\r\nHost: a b\r\n\r\n") == .invalidHost)
        #expect(request(parseOne("GET / HTTP/1.1\r\nHost: [::1]:8080\r\n\r\n")) != nil)
        #expect(request(parseOne("GET / HTTP/1.1\r\nHost:\r\n\r\n")) != nil)
    }

    @Test func everyParseError_mapsToAStatus_andCloses() {
        let all: [HTTPParseError] = [
            .invalidLineEnding, .invalidRequestLine, .invalidMethod, .invalidTarget, .invalidVersion,
            .unsupportedVersion, .invalidHeaderName, .invalidHeaderValue, .obsoleteLineFolding,
            .invalidContentLength, .invalidHost, .transferEncodingNotSupported, .headTooLarge,
            .tooManyHeaders, .bodyTooLarge(limit: 1),
        ]
        for error in all {
            #expect([400, 413, 431, 501, 505].contains(error.statusCode))
            #expect(error.closesConnection)
            #expect(!error.message.isEmpty)
        }
    }
}
