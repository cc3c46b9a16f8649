import Testing
@testable import WhisperWebSocket

@Suite struct WebSocketHandshakeTests {
    let key = "dGhlIHNhbXBsZSBub25jZQ=="

    func headers(dropping dropped: String? = nil, _ extra: [(name: String, value: String)] = []) -> [(name: String, value: String)] {
        let base: [(name: String, value: String)] = [
            ("Host", "server.example.com"),
            ("Upgrade", "websocket"),
            ("Connection", "Upgrade"),
            ("Sec-WebSocket-Key", key),
            ("Sec-WebSocket-Version", "13"),
        ]
        return base.filter { $0.name != dropped } + extra
    }

    func error(_ result: Result<WebSocketHandshakeRequest, WebSocketHandshakeError>) -> WebSocketHandshakeError? {
        if case .failure(let error) = result { return error }
        return nil
    }

    @Test func acceptValue_matchesTheRFC6455Section1Point3Example() {
        #expect(WebSocketHandshake.acceptValue(forKey: key) == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    @Test func validRequest_isAccepted_withThe101Headers() throws {
        let request = try WebSocketHandshake.validate(method: "GET", headers: headers()).get()
        let response = request.accept(deflate: nil)
        #expect(response.headers.map(\.name) == ["Upgrade", "Connection", "Sec-WebSocket-Accept"])
        #expect(response.headers.last?.value == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        #expect(response.deflate == nil)
    }

    @Test func headerNamesAndTokens_matchCaseInsensitively_inLists() throws {
        let request = try WebSocketHandshake.validate(method: "GET", headers: [
            ("host", "h"), ("UPGRADE", "h2c, WebSocket"), ("connection", "keep-alive, upgrade"),
            ("sec-websocket-key", " \(key) "), ("SEC-WEBSOCKET-VERSION", "13"),
        ]).get()
        #expect(request.key == key)
    }

    @Test func permessageDeflate_isNegotiated_whenOffered() throws {
        let request = try WebSocketHandshake.validate(method: "GET", headers: headers(
            [("Sec-WebSocket-Extensions", "permessage-deflate; client_max_window_bits")])).get()
        let response = request.accept()
        #expect(response.headers.last?.name == "Sec-WebSocket-Extensions")
        #expect(response.headers.last?.value == "permessage-deflate")
        #expect(response.deflate == DeflateParameters())
        #expect(request.accept(deflate: nil).deflate == nil)
    }

    @Test func methodOtherThanGET_isRefused() {
        let failure = error(WebSocketHandshake.validate(method: "POST", headers: headers()))
        #expect(failure == .methodNotGet)
        #expect(failure?.httpStatus == 405)
    }

    @Test func missingUpgradeConnectionOrHost_isRefusedWith400() {
        #expect(error(WebSocketHandshake.validate(method: "GET", headers: headers(dropping: "Upgrade"))) == .missingUpgradeWebSocket)
        #expect(error(WebSocketHandshake.validate(method: "GET", headers: headers(dropping: "Connection"))) == .missingConnectionUpgrade)
        #expect(error(WebSocketHandshake.validate(method: "GET", headers: headers(dropping: "Host"))) == .missingHost)
        #expect(WebSocketHandshakeError.missingUpgradeWebSocket.httpStatus == 400)
    }

    @Test func otherVersions_areRefusedWith426_namingVersion13() {
        let failure = error(WebSocketHandshake.validate(method: "GET", headers: headers(dropping: "Sec-WebSocket-Version", [("Sec-WebSocket-Version", "8")])))
        #expect(failure == .unsupportedVersion)
        #expect(failure?.httpStatus == 426)
        #expect(failure?.responseHeaders.first?.name == "Sec-WebSocket-Version")
        #expect(failure?.responseHeaders.first?.value == "13")
        #expect(error(WebSocketHandshake.validate(method: "GET", headers: headers(dropping: "Sec-WebSocket-Version"))) == .unsupportedVersion)
    }

    @Test(arguments: ["", "dGhlIHNhbXBsZSBub25jZQ", "dGhlIHNhbXBsZSBub25j", "dGhlIHNhbXBsZSBub25jZSE=", "dGhlIHNhbXBsZSBub25jZQ=!", "!GhlIHNhbXBsZSBub25jZQ=="])
    func keyThatIsNot16Base64Octets_isRefused(badKey: String) {
        let result = WebSocketHandshake.validate(method: "GET", headers: headers(dropping: "Sec-WebSocket-Key", [("Sec-WebSocket-Key", badKey)]))
        #expect(error(result) == .invalidKey)
    }

    @Test func repeatedKey_isRefused() {
        let result = WebSocketHandshake.validate(method: "GET", headers: headers([("Sec-WebSocket-Key", key)]))
        #expect(error(result) == .invalidKey)
    }
}
