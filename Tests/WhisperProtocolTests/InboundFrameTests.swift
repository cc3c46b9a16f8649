import Testing
@testable import WhisperProtocol

@Suite struct InboundFrameTests {
    @Test func validEnvelope_parses() throws {
        let frame = try InboundFrame.parse(utf8Bytes(#"{"type":"ping","requestId":"r-1","payload":{}}"#), limits: .default)
        #expect(frame.type == "ping")
        #expect(frame.requestId == "r-1")
        #expect(frame.payload.isEmpty)
    }

    @Test func requestId_isOptional_andNullMeansAbsent() throws {
        #expect(try InboundFrame.parse(utf8Bytes(#"{"type":"ping","payload":{}}"#), limits: .default).requestId == nil)
        #expect(try InboundFrame.parse(utf8Bytes(#"{"requestId":null,"type":"ping","payload":{}}"#), limits: .default).requestId == nil)
    }

    @Test func topLevelKeys_areAccepted_inAnyOrder() throws {
        let frame = try InboundFrame.parse(utf8Bytes(#"{"payload":{"a":1},"requestId":"x","type":"t"}"#), limits: .default)
        #expect(frame.type == "t")
        #expect(frame.payload["a"] == 1)
    }

    @Test(arguments: [
        ("", FrameError.Reason.malformedJSON(JSONError(.unexpectedEnd, at: 0))),
        ("[]", .notAnObject),
        (#""hello""#, .notAnObject),
        (#"{"payload":{}}"#, .missingType),
        (#"{"type":7,"payload":{}}"#, .typeNotString),
        (#"{"type":null,"payload":{}}"#, .typeNotString),
        (#"{"type":"ping"}"#, .missingPayload),
        (#"{"type":"ping","payload":[]}"#, .payloadNotObject),
        (#"{"type":"ping","payload":null}"#, .payloadNotObject),
        (#"{"type":"ping","payload":"{}"}"#, .payloadNotObject),
        (#"{"type":"ping","payload":{},"requestId":5}"#, .requestIdNotString),
        (#"{"type":"ping","payload":{},"extra":1}"#, .unknownTopLevelKey("extra")),
    ])
    func invalidEnvelopes_areRejectedAsInvalidPayload(_ input: String, _ reason: FrameError.Reason) {
        let error = frameError(input)
        #expect(error?.reason == reason, "\(input)")
        #expect(error?.code == .invalidPayload)
    }

    @Test func requestId_isEchoed_whenTheEnvelopeIsWrong() {
        #expect(frameError(#"{"requestId":"r-9","type":"ping"}"#)?.requestId == "r-9")
        #expect(frameError(#"{"type":1,"payload":{},"requestId":"r-9"}"#)?.requestId == "r-9")
        #expect(frameError(#"{"type":"x","payload":{},"requestID":"typo","requestId":"r-9"}"#)?.requestId == "r-9")
    }

    @Test func requestId_isEchoed_whenJSONBreaksAfterIt() {
        let error = frameError(#"{"type":"send_message","requestId":"r-7","payload":{"to":"WSP-1",}}"#)
        #expect(error?.requestId == "r-7")
        #expect(error?.message.hasPrefix("malformed JSON: unexpected byte 0x7D") == true)
    }

    @Test func requestId_isNotEchoed_whenItWasNotReadIntact() {
        #expect(frameError(#"{"type":"x","payload":{,"requestId":"r-7"}"#)?.requestId == nil)
        #expect(frameError(#"{"requestId":"r-7"#)?.requestId == nil)
        #expect(frameError(#"[{"requestId":"r-7"}"#)?.requestId == nil)
    }

    @Test func duplicateTopLevelKeys_areMalformed() {
        let error = frameError(#"{"type":"a","type":"b","payload":{},"requestId":"r"}"#)
        #expect(error?.reason == .malformedJSON(JSONError(.duplicateKey("type"), at: 12)))
    }

    @Test func requestIdLengthLimit_holdsAtNAndNPlusOne() throws {
        var limits = Limits()
        limits.maxRequestIdBytes = 4
        _ = try InboundFrame.parse(utf8Bytes(#"{"type":"t","payload":{},"requestId":"abcd"}"#), limits: limits)
        let error = frameError(#"{"type":"t","payload":{},"requestId":"abcde"}"#, limits: limits)
        #expect(error?.reason == .requestIdTooLong(maxBytes: 4))
        #expect(error?.requestId == nil)
    }

    @Test func frameSizeLimit_holdsAtNAndNPlusOne() throws {
        var limits = Limits()
        let frame = #"{"type":"t","payload":{}}"#
        limits.maxWebSocketMessageBytes = frame.utf8.count
        _ = try InboundFrame.parse(utf8Bytes(frame), limits: limits)
        #expect(frameError(frame + " ", limits: limits)?.reason == .malformedJSON(JSONError(.inputTooLarge, at: frame.utf8.count)))
    }

    @Test func payloadValues_exposeTheSendersExactBytes() throws {
        let source = #"{"type":"send_message","payload":{"messageId":"ABC-def","nonce":"AAAA\/w==","n":1.50}}"#
        let frame = try InboundFrame.parse(utf8Bytes(source), limits: .default)
        #expect(frame.rawPayloadValue(forKey: "nonce").map { text(Array($0)) } == #""AAAA\/w==""#)
        #expect(frame.rawPayloadValue(forKey: "n").map { text(Array($0)) } == "1.50")
        #expect(frame.rawPayloadValue(forKey: "missing") == nil)
        #expect(frame.payload["nonce"] == "AAAA/w==")
    }

    @Test func errorFrame_echoesTheRequestId() throws {
        let error = try #require(frameError(#"{"requestId":"r-1","payload":{}}"#))
        #expect(text(error.errorFrame())
            == #"{"type":"error","requestId":"r-1","payload":{"code":"INVALID_PAYLOAD","message":"type is required","requestId":"r-1"}}"#)
    }

    @Test func errorMessages_truncateLongPeerSuppliedKeys() throws {
        let key = String(repeating: "k", count: 500)
        let error = try #require(frameError(#"{"type":"t","payload":{},""# + key + #"":1}"#))
        #expect(error.message.count < 200)
    }
}
