import Testing
@testable import WhisperProtocol

@Suite struct OutboundFrameTests {
    @Test func frame_encodesTypeRequestIdAndPayload() {
        let bytes = OutboundFrame.encode(type: "pong", requestId: "r-1") { $0.member("serverTime", Int64(1_730_000_000_000)) }
        #expect(text(bytes) == #"{"type":"pong","requestId":"r-1","payload":{"serverTime":1730000000000}}"#)
    }

    @Test func requestId_isOmitted_whenNil() {
        let bytes = OutboundFrame.encode(type: "session_revoked", requestId: nil) { $0.member("reason", "new_login") }
        #expect(text(bytes) == #"{"type":"session_revoked","payload":{"reason":"new_login"}}"#)
    }

    @Test func emptyPayload_encodes() {
        #expect(text(OutboundFrame.encode(type: "logged_out", requestId: nil) { _ in }) == #"{"type":"logged_out","payload":{}}"#)
    }

    @Test func payloadWriterErrors_propagate() {
        #expect(throws: JSONError(.nonFiniteNumber, at: 0)) {
            try OutboundFrame.encode(type: "t", requestId: nil) { (w: inout JSONWriter) throws(JSONError) in
                w.key("x")
                try w.double(.nan)
            }
        }
    }

    @Test func errorFrame_carriesRequestId_atTopLevelAndInPayload() {
        let bytes = OutboundFrame.errorFrame(code: .rateLimited, message: "slow down", requestId: "r-2", retryAfterMs: 1500)
        #expect(text(bytes)
            == #"{"type":"error","requestId":"r-2","payload":{"code":"RATE_LIMITED","message":"slow down","requestId":"r-2","retryAfterMs":1500}}"#)
    }

    @Test func errorFrame_encodes_withoutRequestIdOrRetry() {
        let bytes = OutboundFrame.errorFrame(code: .notRegistered, message: "log in \"first\"", requestId: nil)
        #expect(text(bytes) == #"{"type":"error","payload":{"code":"NOT_REGISTERED","message":"log in \"first\""}}"#)
    }

    @Test func encodedFrames_parseBackAsEnvelopes() throws {
        let bytes = OutboundFrame.errorFrame(code: .notFound, message: "no such user", requestId: "r")
        let frame = try InboundFrame.parse(bytes, limits: .default)
        #expect(frame.type == "error")
        #expect(frame.requestId == "r")
        #expect(frame.payload["code"] == "NOT_FOUND")
    }
}
