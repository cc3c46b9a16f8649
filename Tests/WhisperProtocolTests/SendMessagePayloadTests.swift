import Foundation
import Testing
@testable import WhisperProtocol

@Suite struct SendMessagePayloadTests {
    typealias F = MessageFixture
    let valid = SendMessageFrame()

    // MARK: Accepted payloads

    @Test func validFrame_parses_lowercasingTheIdOnlyForKeys() throws {
        let parsed = try valid.parse()
        #expect(parsed.messageId.string == F.messageId.lowercased())
        #expect(parsed.messageIdText == F.messageId)
        #expect(parsed.from.string == F.sender)
        #expect(parsed.to.string == F.recipient)
        #expect(parsed.kind == .text)
        #expect(parsed.timestamp == F.timestamp)
        #expect(parsed.signature == [UInt8](repeating: 2, count: 64))
        #expect(parsed.ciphertextByteCount == 16)
        #expect(parsed.replyTo == nil)
        #expect(parsed.attachment == nil)
    }

    @Test func deliveryPayload_isTheMessageReceivedPayload_withoutSessionOrVersions() throws {
        let parsed = try valid.parse()
        let expected = #"{"messageId":"\#(F.messageId)","from":"\#(F.sender)","to":"\#(F.recipient)","msgType":"text","#
            + #""timestamp":1763820000000,"nonce":"\#(F.nonce)","ciphertext":"\#(F.ciphertext)","sig":"\#(F.signature)"}"#
        #expect(text(parsed.deliveryPayload) == expected)
    }

    @Test func deliveryPayload_keepsTheSendersExactBytes_forEscapesAndWhitespace() throws {
        // `\u0041` is "A" and `\/` is "/": valid once decoded, forwarded as written (docs/protocol.md "Canonical signing").
        let escapedTo = #""WSP-\u0041BCD-EFGH-IJ54""#
        let escapedCiphertext = #""\/\/\/\/AAECAwQFBgcICQoLDA0ODw==""#
        let reactions = #"{ "👍" :  [ "WSP-HESP-ERAL-IT3A" ] ,"\u2764" :[]}"#
        let frame = valid.with([
            ("from", F.quoted(F.recipient)), ("to", escapedTo), ("ciphertext", escapedCiphertext),
            ("reactions", reactions),
        ])
        let parsed = try frame.parse()
        #expect(parsed.to.string == "WSP-ABCD-EFGH-IJ54")
        #expect(parsed.ciphertextByteCount == 19)
        let delivered = text(parsed.deliveryPayload)
        #expect(delivered.contains(#""to":"# + escapedTo + ","))
        #expect(delivered.contains(#""ciphertext":"# + escapedCiphertext + ","))
        #expect(delivered.hasSuffix(#""reactions":"# + reactions + "}"))
    }

    @Test func deliveryPayload_parsesBack_withTheMembersInProtocolOrder_whateverTheInputOrder() throws {
        let attachment = AttachmentPointerTests.validText
        // Optional members first, required ones reversed, the session token in the middle.
        var frame = SendMessageFrame()
        frame.members = [("attachment", attachment), ("reactions", "null"), ("replyTo", #""0F8FAD5B-D9CB-469F-A165-70867728950E""#)]
            + valid.members.reversed()
        let parsed = try frame.parse()
        let object = try JSONParser.parseObject(parsed.deliveryPayload)
        #expect(object.keys == SendMessagePayload.deliveredKeys + ["replyTo", "reactions", "attachment"])
        #expect(object["reactions"] == .null)
        #expect(object["replyTo"] == "0F8FAD5B-D9CB-469F-A165-70867728950E")
        #expect(object["timestamp"] == .int(F.timestamp))
        #expect(object["attachment"] == (try parseJSON(attachment)))
        #expect(parsed.replyTo?.string == "0f8fad5b-d9cb-469f-a165-70867728950e")
        #expect(parsed.attachment == AttachmentPointer(objectKey: "att/2026/01/0f8fad5b-d9cb-469f-a165-70867728950e.bin",
                                                       contentType: "image/jpeg", ciphertextSize: 123_456))
    }

    @Test func deliveryPayload_passesExplicitNullsThrough_andOmitsAbsentOptionals() throws {
        let withNulls = try valid.with([("replyTo", "null"), ("reactions", "null"), ("attachment", "null")]).parse()
        #expect(text(withNulls.deliveryPayload).hasSuffix(#","replyTo":null,"reactions":null,"attachment":null}"#))
        let without = try JSONParser.parseObject(try valid.parse().deliveryPayload)
        #expect(without.keys == SendMessagePayload.deliveredKeys)
    }

    @Test func signedBytes_areTheCanonicalBytes_ofTheFieldsAsSent() throws {
        let frame = valid.with("ciphertext", #""\/\/\/\/AAECAwQFBgcICQoLDA0ODw==""#)
        let expected = "v1\nsend_message\n6BA7B810-9DAD-41D1-80B4-00C04FD430C8\nWSP-ABCD-EFGH-IJ54\nWSP-HESP-ERAL-IT3A\n"
            + "1763820000000\nAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEB\n////AAECAwQFBgcICQoLDA0ODw==\n"
        #expect(try frame.parse().signedBytes() == Array(expected.utf8))
    }

    /// `Tests/Fixtures/send-message-vector.json`: a really signed message (the Python tests verify its
    /// signature with libsodium; the services tests can verify it against the same key).
    @Test func fixtureVector_givesTheFixturesSignedBytesAndDeliveryPayload() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/send-message-vector.json")
        let fixture = try JSONParser.parseObject(Array(try Data(contentsOf: url)))
        let frameText = try #require(fixture["frame"]?.stringValue)
        let parsed = try SendMessagePayload(parsing: try InboundFrame.parse(utf8Bytes(frameText), limits: .default), limits: .default)
        #expect(text(parsed.signedBytes()) == fixture["signedBytes"]?.stringValue)
        #expect(text(parsed.deliveryPayload) == fixture["deliveryPayload"]?.stringValue)
        #expect(Base64.encode(parsed.signature) == fixture["signatureBase64"]?.stringValue)
    }

    @Test(arguments: MessageKind.allCases)
    func everyMessageKind_isAccepted(_ kind: MessageKind) throws {
        #expect(try valid.with("msgType", F.quoted(kind.rawValue)).parse().kind == kind)
    }

    @Test func timestampZero_isAccepted() throws {
        #expect(try valid.with("timestamp", "0").parse().timestamp == 0)
    }

    // MARK: Ciphertext size

    @Test(arguments: [MessageKind.text, .system])
    func textCiphertext_atTheLimitIsAccepted_andOneByteMoreIsNot(_ kind: MessageKind) throws {
        let limit = Limits.default.maxTextCiphertextBytes
        #expect(limit == 8_016)
        let base = valid.with("msgType", F.quoted(kind.rawValue))
        #expect(try base.with("ciphertext", F.quoted(F.base64(count: limit))).parse().ciphertextByteCount == limit)
        #expect(try base.with("ciphertext", F.quoted(F.base64(count: limit + 1))).error() == .tooLarge(field: "ciphertext", maxBytes: limit))
    }

    @Test(arguments: [MessageKind.image, .voice, .file])
    func mediaCiphertext_isBoundOnlyByTheFrame(_ kind: MessageKind) throws {
        let frame = valid.with([("msgType", F.quoted(kind.rawValue)), ("ciphertext", F.quoted(F.base64(count: 100_000)))])
        #expect(try frame.parse().ciphertextByteCount == 100_000)
    }

    @Test func textCiphertextCap_followsTheConfiguredPlaintextLimit() throws {
        var limits = Limits()
        limits.maxTextPlaintextBytes = 100
        #expect(try valid.with("ciphertext", F.quoted(F.base64(count: 116))).parse(limits: limits).ciphertextByteCount == 116)
        #expect(try valid.with("ciphertext", F.quoted(F.base64(count: 117))).error(limits: limits)
                    == .tooLarge(field: "ciphertext", maxBytes: 116))
    }

    // MARK: Rejected payloads

    @Test(arguments: SendMessagePayload.deliveredKeys)
    func missingRequiredMember_isRejected(_ key: String) throws {
        #expect(try valid.with(key, nil).error() == .missingField(key))
    }

    @Test(arguments: [
        ("messageId", "1", PayloadError.wrongType(field: "messageId", expected: .string)),
        ("messageId", #""6ba7b810-9dad-41d1-80b4-00c04fd430c""#, .invalidUUID(field: "messageId")),
        ("messageId", #""{6ba7b810-9dad-41d1-80b4-00c04fd430c8}""#, .invalidUUID(field: "messageId")),
        ("from", #""wsp-abcd-efgh-ij54""#, .invalidWhisperID(field: "from")),
        ("from", "null", .wrongType(field: "from", expected: .string)),
        ("to", #""WSP-ABCD-EFGH-IJ55""#, .invalidWhisperID(field: "to")),
        ("msgType", #""video""#, .invalidValue(field: "msgType")),
        ("msgType", #""TEXT""#, .invalidValue(field: "msgType")),
        ("msgType", "1", .wrongType(field: "msgType", expected: .string)),
        ("timestamp", #""1763820000000""#, .wrongType(field: "timestamp", expected: .int)),
        ("timestamp", "1763820000000.5", .wrongType(field: "timestamp", expected: .int)),
        ("timestamp", "1.7e12", .wrongType(field: "timestamp", expected: .int)),
        ("timestamp", "99999999999999999999", .wrongType(field: "timestamp", expected: .int)),
        ("timestamp", "-1", .outOfRange(field: "timestamp")),
        ("nonce", #""\#(MessageFixture.base64(count: 23))""#, .wrongLength(field: "nonce", expectedBytes: 24, actualBytes: 23)),
        ("nonce", #""\#(MessageFixture.base64(count: 25))""#, .wrongLength(field: "nonce", expectedBytes: 24, actualBytes: 25)),
        ("nonce", #""AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQF=""#, .invalidBase64(field: "nonce")),
        ("nonce", #""AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE!""#, .invalidBase64(field: "nonce")),
        ("nonce", "[]", .wrongType(field: "nonce", expected: .string)),
        ("ciphertext", #""""#, .invalidValue(field: "ciphertext")),
        ("ciphertext", #""AAECAwQFBgcICQoLDA0ODw""#, .invalidBase64(field: "ciphertext")),
        ("ciphertext", #""AAEC AwQF""#, .invalidBase64(field: "ciphertext")),
        ("ciphertext", "16", .wrongType(field: "ciphertext", expected: .string)),
        ("sig", #""\#(MessageFixture.base64(count: 63))""#, .wrongLength(field: "sig", expectedBytes: 64, actualBytes: 63)),
        ("sig", #""\#(MessageFixture.base64(count: 65))""#, .wrongLength(field: "sig", expectedBytes: 64, actualBytes: 65)),
        ("replyTo", #""not-a-uuid""#, .invalidUUID(field: "replyTo")),
        ("replyTo", "7", .wrongType(field: "replyTo", expected: .string)),
        ("reactions", "[]", .wrongType(field: "reactions", expected: .object)),
        ("reactions", #"{"👍":"WSP-ABCD-EFGH-IJ54"}"#, .wrongType(field: "reactions", expected: .array)),
        ("attachment", #""att/x.bin""#, .wrongType(field: "attachment", expected: .object)),
        ("attachment", "{}", .missingField("attachment.objectKey")),
        ("groupId", #""grp-1""#, .unknownField("groupId")),
        ("MessageId", #""x""#, .unknownField("MessageId")),
    ] as [(String, String, PayloadError)])
    func invalidMember_isRejected(_ key: String, _ raw: String, _ expected: PayloadError) throws {
        #expect(try valid.with(key, raw).error() == expected)
    }

    @Test func unknownMember_isReported_beforeAnyOtherProblem() throws {
        #expect(try valid.with([("messageId", "1"), ("extra", "1")]).error() == .unknownField("extra"))
    }

    @Test func attachmentErrors_nameTheMemberByItsPath() throws {
        let box = #"{"nonce":"\#(F.base64(count: 24))","ciphertext":"\#(F.base64(count: 257))"}"#
        let attachment = #"{"objectKey":"k","contentType":"image/png","ciphertextSize":1,"fileNonce":"\#(F.base64(count: 24))","fileKeyBox":\#(box)}"#
        #expect(try valid.with("attachment", attachment).error() == .tooLarge(field: "attachment.fileKeyBox.ciphertext", maxBytes: 256))
    }

    @Test func reactionsLimits_applyInsideSendMessage() throws {
        let keys = (0...Limits.default.maxReactionKeys).map { #""r\#($0)":[]"# }
        #expect(try valid.with("reactions", "{" + keys.dropLast().joined(separator: ",") + "}").error() == nil)
        #expect(try valid.with("reactions", "{" + keys.joined(separator: ",") + "}").error() == .outOfRange(field: "reactions"))
    }
}
