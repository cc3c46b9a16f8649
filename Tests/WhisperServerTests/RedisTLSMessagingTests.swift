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
        // Ed25519 signatures are deterministic: the relayed signed fields are exactly Alice's.
        let sent = message.payload(signedBy: alice.identity.signing)
        for field in ["messageId", "from", "to", "nonce", "ciphertext", "sig"] {
            #expect(received.payload[field] as? String == sent[field] as? String, "\(field)")
        }
        #expect((received.payload["timestamp"] as? NSNumber)?.int64Value == message.timestamp)
        // The durable queue is in the TLS Redis too: pending until receipted.
        #expect(try bob.fetchAll().messages.count == 1)
    }
}
