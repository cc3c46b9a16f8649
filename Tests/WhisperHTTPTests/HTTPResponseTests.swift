import Testing
@testable import WhisperHTTP

@Suite struct HTTPResponseTests {
    func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test func jsonResponse_keepAlive_goldenBytes() {
        let response = HTTPResponse.json(status: .ok, body: bytes(#"{"ok":true}"#))
        #expect(text(response.serialized(closeConnection: false)) ==
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{\"ok\":true}")
    }

    @Test func closingResponse_withDate_goldenBytes() {
        let response = HTTPResponse(status: .notFound, headers: ["X-Request-Id": "r1"], body: bytes("nope"))
        let wire = response.serialized(closeConnection: true, date: "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(text(wire) == "HTTP/1.1 404 Not Found\r\nX-Request-Id: r1\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\n"
            + "Content-Length: 4\r\nConnection: close\r\n\r\nnope")
    }

    @Test func http10KeepAlive_getsConnectionKeepAlive() {
        let wire = HTTPResponse(status: .noContent).serialized(closeConnection: false, requestVersion: .http1_0)
        #expect(text(wire) == "HTTP/1.1 204 No Content\r\nConnection: keep-alive\r\n\r\n")
    }

    @Test func switchingProtocols_hasNoContentLength_andKeepsConnectionUpgrade() {
        let response = HTTPResponse(status: .switchingProtocols, headers: [
            "Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Accept": "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=",
        ])
        #expect(text(response.serialized(closeConnection: false)) == "HTTP/1.1 101 Switching Protocols\r\n"
            + "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n")
    }

    @Test func headResponse_keepsContentLength_butOmitsBody() {
        let wire = HTTPResponse(status: .ok, body: bytes("hello")).serialized(closeConnection: false, omitBody: true)
        #expect(text(wire) == "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n")
    }

    @Test func handlerFramingHeaders_areReplaced() {
        let response = HTTPResponse(status: .ok, headers: [
            "Content-Length": "999", "Transfer-Encoding": "chunked", "Connection": "keep-alive",
        ], body: bytes("x"))
        #expect(text(response.serialized(closeConnection: true)) ==
            "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nConnection: close\r\n\r\nx")
    }

    @Test func headerValueWithCRLF_cannotSplitResponse() {
        let response = HTTPResponse(status: .ok, headers: ["X-Echo": "a\r\nSet-Cookie: evil", "Bad Name": "v"])
        #expect(text(response.serialized(closeConnection: false)) ==
            "HTTP/1.1 200 OK\r\nX-Echo: a  Set-Cookie: evil\r\nContent-Length: 0\r\n\r\n")
    }

    @Test func errorBody_matchesContractShape() {
        let response = HTTPResponse.error(status: .badRequest, code: "INVALID_PAYLOAD", message: "bad \"id\"")
        #expect(response.headers["content-type"] == "application/json")
        #expect(text(response.body) == #"{"error":{"code":"INVALID_PAYLOAD","message":"bad \"id\""}}"#)
    }

    @Test func rateLimited_carriesRetryAfterSeconds() {
        let response = HTTPResponse.rateLimited(retryAfterSeconds: 7)
        #expect(response.status.code == 429)
        #expect(response.headers["Retry-After"] == "7")
        #expect(text(response.body) == #"{"error":{"code":"RATE_LIMITED","message":"rate limit exceeded"}}"#)
        #expect(HTTPResponse.rateLimited(retryAfterSeconds: 0).headers["Retry-After"] == "1")
    }

    @Test func upgradeRequired_carriesWebSocketVersion() {
        let response = HTTPResponse.upgradeRequired()
        #expect(response.status.code == 426)
        #expect(response.headers["sec-websocket-version"] == "13")
        #expect(response.headers["upgrade"] == "websocket")
    }

    @Test func methodNotAllowed_carriesAllow() {
        let response = HTTPResponse.methodNotAllowed(allowed: ["GET", "HEAD", "POST"])
        #expect(response.status.code == 405)
        #expect(response.headers["Allow"] == "GET, HEAD, POST")
    }

    @Test func parseErrorResponse_usesItsStatus() {
        let wire = HTTPResponse.parseError(.headTooLarge).serialized(closeConnection: true)
        #expect(text(wire).hasPrefix("HTTP/1.1 431 Request Header Fields Too Large\r\n"))
        #expect(text(wire).hasSuffix(#"{"error":{"code":"HEADERS_TOO_LARGE","message":"request head too large"}}"#))
    }

    @Test func unknownStatus_hasEmptyReasonPhrase() {
        #expect(text(HTTPResponse(status: 599).serialized(closeConnection: false)).hasPrefix("HTTP/1.1 599 \r\n"))
    }

    @Test func continueBytes_areTheInterimResponse() {
        #expect(text(HTTPResponse.continueBytes) == "HTTP/1.1 100 Continue\r\n\r\n")
    }
}
