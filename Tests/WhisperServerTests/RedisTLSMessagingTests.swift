import Foundation
import Testing
import WhisperTesting

/// A whole server on `rediss://` (scripts/test's TLS-only Redis): sessions, the pending queue and
/// the live-delivery pub/sub all cross TLS.
@Suite struct RedisTLSMessagingTests {
    @Test func aServerOnRediss_relaysASignedMessageBetweenTwoPhones() async throws {
        let server = try await TestServer([
            "WHISPER_REDIS_URL": try TestEnvironment.redisTLSURL,
            "WHISPER_REDIS_TLS_CA_FILE": try TestEnvironment.redisTLSDirectory + "/ca.pem",
        ])
        defer { server.stop() }
        #expect(server.config.redis.tls != nil)
        let alice = try Phone.online(server), bob = try Phone.online(server)
        let message = TestMessage(from: alice.id, to: bob.id)
        let ack = try alice.send(message)
        #expect(ack.frameType == "message_accepted", "\(ack)")

        let received = try bob.ws.receiveJSON()
        #expect(received.frameType == "message_received")
        let payload = received.payload
        #expect(payload["messageId"] as? String == message.messageId)
        #expect(payload["ciphertext"] as? String == message.ciphertext)
        let signedBytes = TestMessage.signedBytes(
            messageId: payload["messageId"] as? String ?? "", from: payload["from"] as? String ?? "",
            to: payload["to"] as? String ?? "", timestamp: (payload["timestamp"] as? NSNumber)?.int64Value ?? 0,
            nonce: payload["nonce"] as? String ?? "", ciphertext: payload["ciphertext"] as? String ?? "")
        let signature = Array(Data(base64Encoded: payload["sig"] as? String ?? "") ?? Data())
        #expect(TestSigningKey.verify(signature: signature, message: TestSHA256.hash(signedBytes),
                                      publicKey: alice.identity.signing.publicKey))
        // The durable queue is in the TLS Redis too: pending until receipted.
        #expect(try bob.fetchAll().messages.count == 1)
    }
}
