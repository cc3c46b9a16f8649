import Foundation
import Testing
import WhisperProtocol
@testable import WhisperServices

/// The proof that the client and the server agree: Tests/Fixtures/client-vectors.json holds a
/// `send_message` frame the Swift client (WhisperClient) sealed and signed with keys derived from
/// a seed phrase. The server's own parser and verifier must accept it, and the messaging service
/// must accept it from a session holding the derived sign key.
@Suite struct ClientVectorsTests {
    let vectors: [String: Any]

    init() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/client-vectors.json")
        vectors = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
    }

    func field(_ section: String, _ key: String) throws -> String {
        try #require((vectors[section] as? [String: Any])?[key] as? String, "\(section).\(key)")
    }

    func aliceSignKey() throws -> [UInt8] { try #require(Base64.decode(try field("alice", "signPublicKey"))) }

    func clientMessage() throws -> SendMessagePayload {
        try SendMessagePayload(parsing: try InboundFrame.parse(Array(try field("sendMessage", "frame").utf8), limits: .default),
                               limits: .default)
    }

    @Test func clientFrame_parsesWithTheServersParser_andItsSignatureVerifies() throws {
        let message = try clientMessage()
        #expect(message.from.string == (try field("alice", "whisperId")))
        #expect(message.signedBytes() == Array(try field("sendMessage", "signedBytes").utf8))
        let verifier = SignatureVerifier(histogram: nil)
        #expect(verifier.verify(signature: message.signature, signedBytes: message.signedBytes(), publicKey: try aliceSignKey()))
        // The other identity's key does not verify it.
        let bobKey = try #require(Base64.decode(try field("bob", "signPublicKey")))
        #expect(!verifier.verify(signature: message.signature, signedBytes: message.signedBytes(), publicKey: bobKey))
    }

    @Test func clientGroupAndCallSignatures_verifyWithTheServersVerifier() throws {
        let verifier = SignatureVerifier(histogram: nil)
        for section in ["groupSendMessage", "callInitiate"] {
            let signature = try #require(Base64.decode(try field(section, "signatureBase64")))
            let signedBytes = Array(try field(section, "signedBytes").utf8)
            #expect(verifier.verify(signature: signature, signedBytes: signedBytes, publicKey: try aliceSignKey()), "\(section)")
        }
    }

    @Test func clientFrame_isAcceptedByTheMessagingService_onlyWithTheDerivedKey() throws {
        let harness = try MessagingHarness()
        let message = try clientMessage()
        harness.store.acceptOutcome = .accepted(cursor: PendingCursor(milliseconds: 1, sequence: 0), routing: .offline)
        #expect(message.timestamp == MessagingHarness.now)
        #expect(harness.send(message, signKey: try aliceSignKey()).isSuccess)
        #expect(harness.store.accepted.map(\.deliveryPayload) == [message.deliveryPayload])
        #expect(harness.send(message, signKey: harness.signKey).failure == .authFailed(.badSignature))
    }
}
