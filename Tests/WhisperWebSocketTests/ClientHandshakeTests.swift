import Testing
@testable import WhisperWebSocket

struct ClientHandshakeTests {
    // RFC 6455 §1.3: the sample nonce and its accept value.
    private let keyBytes: [UInt8] = Array("the sample nonce".utf8)
    private let accept = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="

    private func head(_ lines: [String]) -> ArraySlice<UInt8> {
        Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)[...]
    }

    @Test func request_carriesKeyVersionAndOptionalDeflateOffer() {
        let plain = ClientHandshake(host: "127.0.0.1:8080", path: "/ws", offerDeflate: false, keyBytes: keyBytes)
        let text = String(decoding: plain.request, as: UTF8.self)
        #expect(plain.key == "dGhlIHNhbXBsZSBub25jZQ==")
        #expect(text.hasPrefix("GET /ws HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n"))
        #expect(text.contains("Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"))
        #expect(!text.contains("Extensions"))
        #expect(text.hasSuffix("\r\n\r\n"))
        let deflate = ClientHandshake(host: "h", path: "/ws", offerDeflate: true, keyBytes: keyBytes)
        #expect(String(decoding: deflate.request, as: UTF8.self).contains("Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n"))
    }

    @Test func validResponse_isAccepted_withoutExtensions() {
        let handshake = ClientHandshake(host: "h", path: "/ws", offerDeflate: false, keyBytes: keyBytes)
        let response = head(["HTTP/1.1 101 Switching Protocols", "Upgrade: websocket", "Connection: Upgrade",
                             "Sec-WebSocket-Accept: \(accept)"])
        #expect(handshake.validate(head: response) == .success(nil))
    }

    @Test func wrongStatusAcceptOrUpgrade_areRefused() {
        let handshake = ClientHandshake(host: "h", path: "/ws", offerDeflate: false, keyBytes: keyBytes)
        #expect(handshake.validate(head: head(["HTTP/1.1 503 Service Unavailable", "Content-Length: 0"])) == .failure(.status(503)))
        #expect(handshake.validate(head: head(["HTTP/1.1 101 x", "Upgrade: websocket", "Connection: upgrade",
                                               "Sec-WebSocket-Accept: AAAA"])) == .failure(.badAccept))
        #expect(handshake.validate(head: head(["HTTP/1.1 101 x", "Connection: upgrade",
                                               "Sec-WebSocket-Accept: \(accept)"])) == .failure(.missingUpgrade))
        #expect(handshake.validate(head: head(["garbage"])) == .failure(.malformedResponse))
    }

    @Test func acceptedDeflate_isMirroredOntoTheClientsCompressorAndInflater() {
        let handshake = ClientHandshake(host: "h", path: "/ws", offerDeflate: true, keyBytes: keyBytes)
        let response = head(["HTTP/1.1 101 Switching Protocols", "Upgrade: websocket", "Connection: Upgrade",
                             "Sec-WebSocket-Accept: \(accept)",
                             "Sec-WebSocket-Extensions: permessage-deflate; server_no_context_takeover; client_max_window_bits=10"])
        guard case .success(let deflate?) = handshake.validate(head: response) else {
            Issue.record("deflate not negotiated")
            return
        }
        #expect(deflate.outgoing.serverMaxWindowBits == 10)
        #expect(deflate.outgoing.serverNoContextTakeover == false)
        #expect(deflate.incoming.clientNoContextTakeover == true)
    }

    @Test func extensionNotOffered_failsTheHandshake() {
        let handshake = ClientHandshake(host: "h", path: "/ws", offerDeflate: false, keyBytes: keyBytes)
        let response = head(["HTTP/1.1 101 x", "Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Accept: \(accept)",
                             "Sec-WebSocket-Extensions: permessage-deflate"])
        #expect(handshake.validate(head: response) == .failure(.unexpectedExtension("permessage-deflate")))
    }

    @Test func headEnd_isFoundOnlyAfterTheBlankLine() {
        #expect(ClientHandshake.headEnd(in: Array("HTTP/1.1 101 x\r\n".utf8)) == nil)
        #expect(ClientHandshake.headEnd(in: Array("a\r\n\r\nrest".utf8)) == 5)
    }
}
