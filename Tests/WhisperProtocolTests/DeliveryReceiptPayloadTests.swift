import Testing
@testable import WhisperProtocol

@Suite struct DeliveryReceiptPayloadTests {
    typealias F = MessageFixture

    static func receipt(_ changes: [(String, JSONValue?)] = []) -> JSONObject {
        var payload: JSONObject = [
            "protocolVersion": 1, "cryptoVersion": 1, "sessionToken": .string(F.token),
            "messageId": .string(F.messageId), "from": .string(F.recipient), "to": .string(F.sender),
            "status": "delivered", "timestamp": .int(F.timestamp),
        ]
        for (key, value) in changes { payload[key] = value }
        return payload
    }

    static func error(_ payload: JSONObject) -> PayloadError? {
        F.error { () throws(PayloadError) in _ = try DeliveryReceiptPayload(parsing: payload) }
    }

    @Test func validReceipt_parses_keepingTheIdAsSent_andLowercasedForLookups() throws {
        let parsed = try DeliveryReceiptPayload(parsing: Self.receipt())
        #expect(parsed.messageIdText == F.messageId)
        #expect(parsed.messageId.string == F.messageId.lowercased())
        #expect(parsed.from.string == F.recipient)
        #expect(parsed.to.string == F.sender)
        #expect(parsed.status == .delivered)
        #expect(parsed.timestamp == F.timestamp)
    }

    @Test func readReceiptWithTimestampZero_parses() throws {
        let parsed = try DeliveryReceiptPayload(parsing: Self.receipt([("status", "read"), ("timestamp", 0)]))
        #expect(parsed.status == .read)
        #expect(parsed.timestamp == 0)
    }

    @Test func versionsAndSessionToken_areAllowedButNotRequired() throws {
        // The gateway checks them before the handler; the payload type only has to allow them.
        let bare = Self.receipt([("protocolVersion", nil), ("cryptoVersion", nil), ("sessionToken", nil)])
        #expect(Self.error(bare) == nil)
    }

    @Test(arguments: ["messageId", "from", "to", "status", "timestamp"])
    func missingMember_isRejected(_ key: String) {
        #expect(Self.error(Self.receipt([(key, nil)])) == .missingField(key))
    }

    @Test(arguments: [
        ("messageId", JSONValue.string("x"), PayloadError.invalidUUID(field: "messageId")),
        ("messageId", .int(1), .wrongType(field: "messageId", expected: .string)),
        ("from", "WSP-ABCD-EFGH-IJ55", .invalidWhisperID(field: "from")),
        ("to", "wsp-hesp-eral-it3a", .invalidWhisperID(field: "to")),
        ("status", "seen", .invalidValue(field: "status")),
        ("status", "Delivered", .invalidValue(field: "status")),
        ("status", .bool(true), .wrongType(field: "status", expected: .string)),
        ("timestamp", -1, .outOfRange(field: "timestamp")),
        ("timestamp", .double(1.5), .wrongType(field: "timestamp", expected: .int)),
        ("timestamp", "1763820000000", .wrongType(field: "timestamp", expected: .int)),
        ("msgType", "text", .unknownField("msgType")),
    ])
    func invalidMember_isRejected(_ key: String, _ value: JSONValue, _ expected: PayloadError) {
        #expect(Self.error(Self.receipt([(key, value)])) == expected)
    }

    @Test func memberwiseInit_validatesTheIdAndTimestamp() throws {
        let from = try #require(WhisperID.validate(F.recipient)), to = try #require(WhisperID.validate(F.sender))
        let built = try DeliveryReceiptPayload(messageIdText: F.messageId, from: from, to: to, status: .read, timestamp: 5)
        #expect(built.messageId.string == F.messageId.lowercased())
        #expect(F.error { () throws(PayloadError) in
            _ = try DeliveryReceiptPayload(messageIdText: "x", from: from, to: to, status: .read, timestamp: 5)
        } == .invalidUUID(field: "messageId"))
        #expect(F.error { () throws(PayloadError) in
            _ = try DeliveryReceiptPayload(messageIdText: F.messageId, from: from, to: to, status: .read, timestamp: -1)
        } == .outOfRange(field: "timestamp"))
    }
}
