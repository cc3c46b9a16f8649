import Testing
import WhisperOps
import WhisperTesting

/// Two whole servers on the 3-primary + 3-replica Redis Cluster scripts/test starts
/// (`WHISPER_REDIS_CLUSTER=1`), every script in one-slot steps (issue #27). scripts/test's
/// cluster pass runs the messaging, group, call, presence and typing suites there too; this
/// one runs in every pass, so the main one proves a node starts and relays on a cluster.
@Suite struct ServerOnRedisClusterTests {
    static var onCluster: [String: String] {
        get throws { ["WHISPER_REDIS_URL": try TestEnvironment.redisClusterURL, "WHISPER_REDIS_CLUSTER": "1"] }
    }

    @Test func twoNodes_relayLiveAndQueuedMessages_receiptsAndPresence_acrossShards() async throws {
        let cluster = try await TestCluster(try Self.onCluster)
        defer { cluster.stop() }
        let alice = try Phone.online(cluster.nodeA), bob = try Phone.online(cluster.nodeB)
        // Bob's route moved to node B before his ack: alice's message, sent from node A the
        // moment he holds it, is live — published on node B's sharded channel.
        let live = try alice.sendAccepted(to: bob.id)
        let received = try bob.ws.receiveJSON()
        #expect(received.frameType == "message_received")
        #expect(received.payload["messageId"] as? String == live.messageId)
        let receipt = try bob.ws.receipt(messageId: live.messageId, from: bob.id, to: alice.id, token: bob.token)
        #expect(receipt.frameType == "receipt_accepted", "\(receipt)")
        let delivered = try alice.ws.receiveJSON()
        #expect(delivered.frameType == "message_delivered")
        #expect(delivered.payload["messageId"] as? String == live.messageId)

        // Queued while Bob is away, fetched on the other node.
        bob.ws.socket.close()
        let queued = try alice.sendAccepted(to: bob.id)
        let back = try bob.reconnect(cluster.nodeA)
        #expect(try back.fetchAll().messages.compactMap { $0["messageId"] as? String } == [queued.messageId])
    }
}
