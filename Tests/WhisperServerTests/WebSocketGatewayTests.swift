import Foundation
import Testing
import WhisperTesting

/// The WebSocket transport and the frame layer, driven as a phone would.
@Suite(.serialized) struct WebSocketGatewayTests {
    @Test func ping_getsPong_withServerTimeAndEchoedRequestId() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let ws = try TestWebSocket(port: server.publicPort)
        let before = Int64(Date().timeIntervalSince1970 * 1000)
        let reply = try ws.request(["type": "ping", "requestId": "r-1", "payload": [:]])
        #expect(reply["type"] as? String == "pong")
        #expect(reply["requestId"] as? String == "r-1")
        let serverTime = (reply["payload"] as? [String: Any])?["serverTime"] as? Int64 ?? 0
        #expect(abs(serverTime - before) < 5_000)
    }

    @Test func malformedJSON_getsInvalidPayload_andTheSocketStaysOpen() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let ws = try TestWebSocket(port: server.publicPort)
        try ws.sendText(#"{"type":"ping","requestId":"r-9","payload":"#)
        let error = try ws.receiveJSON()
        #expect(error["type"] as? String == "error")
        #expect((error["payload"] as? [String: Any])?["code"] as? String == "INVALID_PAYLOAD")
        #expect(try ws.request(["type": "ping", "payload": [:]])["type"] as? String == "pong")
    }

    @Test func unknownType_andNonObjectFrames_getInvalidPayload_withRequestIdEchoed() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let ws = try TestWebSocket(port: server.publicPort)
        let unknown = try ws.request(["type": "teleport", "requestId": "r-2", "payload": [:]])
        #expect(unknown["requestId"] as? String == "r-2")
        #expect((unknown["payload"] as? [String: Any])?["code"] as? String == "INVALID_PAYLOAD")
        for text in ["[]", "\"ping\"", #"{"type":"ping"}"#, #"{"payload":{}}"#] {
            try ws.sendText(text)
            #expect((try ws.receiveJSON()["payload"] as? [String: Any])?["code"] as? String == "INVALID_PAYLOAD", "\(text)")
        }
    }

    @Test func binaryMessage_closesWith1003() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let ws = try TestWebSocket(port: server.publicPort)
        try ws.sendFrame(opcode: 0x2, payload: [1, 2, 3])
        #expect(try ws.receiveClose() == 1003)
    }

    /// One limit at every layer: the configured message cap is the WebSocket's AND the frame
    /// parser's. Raised above the 512,000 default, a message at the cap used to pass the
    /// socket and then get INVALID_PAYLOAD from a parser still holding the default.
    @Test(arguments: [4_096, 1_000_000])
    func messageOverTheCap_closesWith1009_andAtTheCapIsAnswered(cap: Int) async throws {
        // A text message at its cap must fit in one WebSocket message (a start-up check).
        let server = try await TestServer(["WHISPER_MAX_WS_MESSAGE_BYTES": String(cap), "WHISPER_MAX_TEXT_BYTES": "1000"])
        defer { server.stop() }
        let ws = try TestWebSocket(port: server.publicPort)
        // Exactly at the cap: a well-formed frame padded with spaces is parsed and answered.
        let frame = #"{"type":"ping","payload":{}}"#
        try ws.sendText(frame + String(repeating: " ", count: cap - frame.utf8.count))
        #expect(try ws.receiveJSON()["type"] as? String == "pong")
        try ws.sendText(frame + String(repeating: " ", count: cap + 1 - frame.utf8.count))
        #expect(try ws.receiveClose() == 1009)
    }

    @Test func invalidUTF8_closesWith1007_andUnmaskedFrames_with1002() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let ws = try TestWebSocket(port: server.publicPort)
        try ws.sendFrame(opcode: 0x1, payload: [0x7B, 0xC3, 0x28, 0x7D])
        #expect(try ws.receiveClose() == 1007)
        let second = try TestWebSocket(port: server.publicPort)
        try second.sendFrame(opcode: 0x1, payload: Array("{}".utf8), mask: false)
        #expect(try second.receiveClose() == 1002)
    }

    @Test func fragmentedMessage_withInterleavedPing_isReassembled() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let ws = try TestWebSocket(port: server.publicPort)
        try ws.sendFrame(opcode: 0x1, payload: Array(#"{"type":"pi"#.utf8), fin: false)
        try ws.sendFrame(opcode: 0x9, payload: Array("hb".utf8))
        try ws.sendFrame(opcode: 0x0, payload: Array(#"ng","requestId":"f","payload":{}}"#.utf8))
        #expect(try ws.receiveFrame() == .pong(Array("hb".utf8)))
        #expect(try ws.receiveJSON()["requestId"] as? String == "f")
    }

    @Test func compressedSession_negotiatesDeflate_andExchangesFrames() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let ws = try TestWebSocket(port: server.publicPort,
                                   extraHeaders: ["Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits"])
        #expect(ws.responseHead.lowercased().contains("sec-websocket-extensions: permessage-deflate"))
        // An uncompressed frame is still legal on a deflate session (RSV1 clear).
        try ws.sendText(#"{"type":"ping","requestId":"z","payload":{}}"#)
        _ = try ws.receiveFrame()
        #expect(ws.lastFrameCompressed, "the reply should be a compressed (RSV1) message")
    }

    @Test func clientClose_isEchoed() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let ws = try TestWebSocket(port: server.publicPort)
        try ws.sendClose(code: 1000, reason: "bye")
        #expect(try ws.receiveClose() == 1000)
        #expect(ws.socket.waitForClose())
    }
}
