import Testing
import WhisperProtocol
@testable import WhisperClient

@Suite struct SealedEnvelopeTests {
    let vectors: ClientVectors
    let alice: (keys: ClientIdentity, id: WhisperID)
    let bob: (keys: ClientIdentity, id: WhisperID)

    init() throws {
        vectors = try ClientVectors()
        alice = try vectors.identity("alice")
        bob = try vectors.identity("bob")
    }

    func seal(_ name: String, kind: EnvelopeKind, idKey: String) throws -> (SealedEnvelope, ClientVectors.Section) {
        let vector = try vectors.section(name)
        let envelope = try alice.keys.seal(try vector.utf8("plaintext"), kind: kind, id: try vector.string(idKey), from: alice.id,
                                           to: bob.id, timestampMillis: try vector.int("timestamp"),
                                           recipientEncPublicKey: bob.keys.encPublicKey, nonce: try vector.hex("nonce"))
        return (envelope, vector)
    }

    @Test func fixedVectors_sendMessage_groupMessage_callInitiate_giveTheRecordedBytes() throws {
        let groupId = try vectors.section("groupSendMessage").string("groupId")
        for (name, kind, idKey) in [("sendMessage", EnvelopeKind.message, "messageId"),
                                    ("groupSendMessage", .groupMessage(groupId: groupId), "messageId"),
                                    ("callInitiate", .call(.initiate), "callId")] {
            let (envelope, vector) = try seal(name, kind: kind, idKey: idKey)
            #expect(envelope.ciphertextBase64 == (try vector.string("ciphertextBase64")), "\(name)")
            #expect(envelope.signedBytes() == (try vector.utf8("signedBytes")), "\(name)")
            #expect(envelope.signatureBase64 == (try vector.string("signatureBase64")), "\(name)")
        }
    }

    @Test func sendMessageFrame_isTheRecordedFrame_andTheServersParserAcceptsItsSignature() throws {
        let (envelope, vector) = try seal("sendMessage", kind: .message, idKey: "messageId")
        let frame = try #require(MessageFrame.encode(envelope, msgType: .text, sessionToken: try vector.string("sessionToken"),
                                                     requestId: try vector.string("requestId")))
        #expect(frame == (try vector.utf8("frame")))
        let parsed = try SendMessagePayload(parsing: try InboundFrame.parse(frame, limits: .default), limits: .default)
        #expect(parsed.signedBytes() == envelope.signedBytes())
        #expect(parsed.signature == envelope.signature)
    }

    @Test func groupFrame_carriesTheGroupId_andParsesAsTheSameEnvelope() throws {
        let groupId = try vectors.section("groupSendMessage").string("groupId")
        let (envelope, _) = try seal("groupSendMessage", kind: .groupMessage(groupId: groupId), idKey: "messageId")
        let frame = try #require(MessageFrame.encode(envelope, msgType: .text, sessionToken: "t", requestId: nil))
        let parsed = try SendMessagePayload(parsing: try InboundFrame.parse(frame, limits: .default), limits: .default)
        #expect(parsed.messageType == "group_send_message" && parsed.groupIdText == groupId)
        #expect(parsed.signedBytes() == envelope.signedBytes())
        let call = try alice.keys.seal([1], kind: .call(.end), id: "c", from: alice.id, to: bob.id, timestampMillis: 0,
                                       recipientEncPublicKey: bob.keys.encPublicKey)
        #expect(MessageFrame.encode(call, msgType: .text, sessionToken: "t", requestId: nil) == nil)
    }

    @Test func roundTrip_recipientVerifiesThenDecrypts_withFreshNonces() throws {
        let plaintext = Array("hello".utf8)
        let first = try alice.keys.seal(plaintext, kind: .message, id: "m", from: alice.id, to: bob.id, timestampMillis: 5,
                                        recipientEncPublicKey: bob.keys.encPublicKey)
        let second = try alice.keys.seal(plaintext, kind: .message, id: "m", from: alice.id, to: bob.id, timestampMillis: 5,
                                         recipientEncPublicKey: bob.keys.encPublicKey)
        #expect(first.nonce.count == 24 && first.nonce != second.nonce)
        #expect(first.ciphertext.count == plaintext.count + 16)
        #expect(try bob.keys.open(first, senderSignPublicKey: alice.keys.signPublicKey,
                                  senderEncPublicKey: alice.keys.encPublicKey) == plaintext)
    }

    @Test func tamperedSignedField_isABadSignature_beforeDecryption() throws {
        let (envelope, _) = try seal("sendMessage", kind: .message, idKey: "messageId")
        let later = SealedEnvelope(kind: .message, id: envelope.id, from: envelope.from, to: envelope.to,
                                   timestampMillis: envelope.timestampMillis + 1, nonce: envelope.nonce,
                                   ciphertext: envelope.ciphertext, signature: envelope.signature)
        #expect(throws: ClientCryptoError.badSignature) {
            try bob.keys.open(later, senderSignPublicKey: alice.keys.signPublicKey, senderEncPublicKey: alice.keys.encPublicKey)
        }
        #expect(throws: ClientCryptoError.badSignature) {
            try bob.keys.open(envelope, senderSignPublicKey: bob.keys.signPublicKey, senderEncPublicKey: alice.keys.encPublicKey)
        }
    }

    @Test func wrongRecipientOrSenderKey_failsDecryption() throws {
        let (envelope, _) = try seal("sendMessage", kind: .message, idKey: "messageId")
        // Alice cannot open what she boxed to Bob with her own key as recipient.
        #expect(throws: ClientCryptoError.decryptionFailed) {
            try alice.keys.open(envelope, senderSignPublicKey: alice.keys.signPublicKey, senderEncPublicKey: alice.keys.encPublicKey)
        }
        #expect(throws: ClientCryptoError.decryptionFailed) {
            try bob.keys.open(envelope, senderSignPublicKey: alice.keys.signPublicKey, senderEncPublicKey: bob.keys.encPublicKey)
        }
    }

    @Test func smallOrderRecipientKey_isRefused() {
        #expect(throws: ClientCryptoError.invalidPublicKey) {
            try alice.keys.seal([1], kind: .message, id: "m", from: alice.id, to: bob.id, timestampMillis: 0,
                                recipientEncPublicKey: [UInt8](repeating: 0, count: 32))
        }
    }

    @Test func wrongNonceOrKeyLength_isRefused_beforeAnyCCall() {
        #expect(throws: ClientCryptoError.wrongLength(what: "nonce", expected: 24, got: 23)) {
            try alice.keys.seal([1], kind: .message, id: "m", from: alice.id, to: bob.id, timestampMillis: 0,
                                recipientEncPublicKey: bob.keys.encPublicKey, nonce: [UInt8](repeating: 0, count: 23))
        }
        #expect(throws: ClientCryptoError.wrongLength(what: "public key", expected: 32, got: 31)) {
            try alice.keys.seal([1], kind: .message, id: "m", from: alice.id, to: bob.id, timestampMillis: 0,
                                recipientEncPublicKey: Array(bob.keys.encPublicKey.prefix(31)))
        }
    }
}
