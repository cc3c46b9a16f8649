import Testing
@testable import WhisperProtocol

@Suite struct MessageFramesTests {
    typealias F = MessageFixture

    static func object(_ bytes: [UInt8]) throws -> JSONObject { try JSONParser.parseObject(bytes) }

    @Test func messageAccepted_echoesTheIdAsSent_andTheRequestId() throws {
        let frame = MessageFrames.messageAccepted(messageIdText: F.messageId, serverTime: 1_763_820_000_123, requestId: "r-9")
        #expect(text(frame) == #"{"type":"message_accepted","requestId":"r-9","payload":{"messageId":"\#(F.messageId)","#
            + #""status":"sent","serverTime":1763820000123}}"#)
        let parsed = try InboundFrame.parse(frame, limits: .default)
        #expect(parsed.type == "message_accepted" && parsed.requestId == "r-9")
        #expect(parsed.payload == ["messageId": .string(F.messageId), "status": "sent", "serverTime": 1_763_820_000_123])
    }

    @Test func messageAccepted_withoutRequestId_omitsIt() throws {
        let frame = try Self.object(MessageFrames.messageAccepted(messageIdText: "x", serverTime: 0, requestId: nil))
        #expect(frame.keys == ["type", "payload"])
    }

    @Test func messageReceived_splicesTheDeliveryPayloadUnchanged() throws {
        let parsed = try SendMessageFrame().with("to", #""WSP-HESP-ERAL-IT3\u0041""#).parse()
        let frame = MessageFrames.messageReceived(deliveryPayload: parsed.deliveryPayload)
        #expect(text(frame) == #"{"type":"message_received","payload":"# + text(parsed.deliveryPayload) + "}")
        #expect(text(frame).contains(#"IT3\u0041"#))
        let envelope = try Self.object(frame)
        #expect(envelope.keys == ["type", "payload"])
        #expect(envelope["payload"]?.objectValue?.keys == SendMessagePayload.deliveredKeys)
        #expect(envelope["payload"]?["to"] == .string(F.recipient))
    }

    @Test func pendingMessages_listsThePayloadsInOrder_withTheNextCursor() throws {
        let first = try SendMessageFrame().parse().deliveryPayload
        let second = try SendMessageFrame().with("messageId", #""0f8fad5b-d9cb-469f-a165-70867728950e""#).parse().deliveryPayload
        let frame = MessageFrames.pendingMessages(payloads: [first[...], second[...]],
                                                  nextCursor: PendingCursor(milliseconds: 17, sequence: 2), requestId: "f1")
        #expect(text(frame) == #"{"type":"pending_messages","requestId":"f1","payload":{"messages":["#
            + text(first) + "," + text(second) + #"],"nextCursor":"17-2"}}"#)
        let envelope = try Self.object(frame)
        let messages = try #require(envelope["payload"]?["messages"]?.arrayValue)
        #expect(messages.map { $0["messageId"] } == [.string(F.messageId), "0f8fad5b-d9cb-469f-a165-70867728950e"])
        #expect(envelope["payload"]?["nextCursor"] == "17-2")
    }

    @Test func pendingMessages_lastPage_hasNoNextCursor_andAnEmptyPageIsAnEmptyList() throws {
        let frame = MessageFrames.pendingMessages(payloads: [], nextCursor: nil, requestId: nil)
        #expect(text(frame) == #"{"type":"pending_messages","payload":{"messages":[]}}"#)
    }

    @Test func pendingMessages_acceptsSlicesOfALargerBuffer() throws {
        let buffer = Array("xx{\"a\":1}yy".utf8)
        let frame = MessageFrames.pendingMessages(payloads: [buffer[2..<9]], nextCursor: nil, requestId: nil)
        #expect(text(frame) == #"{"type":"pending_messages","payload":{"messages":[{"a":1}]}}"#)
    }

    @Test func messageDelivered_carriesTheReceipt_withoutRequestId() throws {
        let from = try #require(WhisperID.validate(F.recipient))
        let frame = MessageFrames.messageDelivered(messageIdText: F.messageId, from: from, status: .read, timestamp: 42)
        #expect(text(frame) == #"{"type":"message_delivered","payload":{"messageId":"\#(F.messageId)","from":"\#(F.recipient)","#
            + #""status":"read","timestamp":42}}"#)
        #expect(try Self.object(frame)["payload"]?.objectValue?.keys == ["messageId", "from", "status", "timestamp"])
    }

    @Test func messageDeliveredParts_aroundAnyId_areTheWholeFrame() throws {
        let from = try #require(WhisperID.validate(F.recipient))
        let parts = MessageFrames.messageDeliveredParts(from: from, status: .delivered, timestamp: 7)
        for id in [F.messageId, F.messageId.uppercased()] {
            #expect(parts.head + Array(id.utf8) + parts.tail
                    == MessageFrames.messageDelivered(messageIdText: id, from: from, status: .delivered, timestamp: 7))
        }
    }

    @Test func receiptAccepted_answersTheReceipt() throws {
        let frame = MessageFrames.receiptAccepted(messageIdText: F.messageId, status: .delivered, requestId: "d1")
        #expect(text(frame) == #"{"type":"receipt_accepted","requestId":"d1","payload":{"messageId":"\#(F.messageId)","status":"delivered"}}"#)
        #expect(text(MessageFrames.receiptAccepted(messageIdText: "m", status: .read, requestId: nil))
                    == #"{"type":"receipt_accepted","payload":{"messageId":"m","status":"read"}}"#)
    }

    @Test func idsWithCharactersThatNeedEscaping_stillGiveValidJSON() throws {
        // The encoders take any text; the handlers only pass validated ids, but the frames must stay JSON.
        let frame = MessageFrames.messageAccepted(messageIdText: "a\"b\\c", serverTime: 1, requestId: "r\n")
        #expect(try Self.object(frame)["payload"]?["messageId"] == "a\"b\\c")
    }
}
