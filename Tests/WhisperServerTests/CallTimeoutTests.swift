import Foundation
import Testing
import WhisperTesting

/// The ring timeout (docs/protocol.md "Calls"): an unanswered call ends for both parties
/// exactly once, from Redis deadlines that every node sweeps, so it fires even when the node
/// that started the call is gone; a held offer is never delivered after it.
@Suite(.serialized) struct CallTimeoutTests {
    static let shortRing = ["WHISPER_CALL_RING_TIMEOUT_SECONDS": "3"]

    @Test func timeout_endsTheCallForBoth_andTheOfflineCalleeGetsTheEndButNeverTheOffer() async throws {
        let server = try await TestServer(Self.shortRing)
        defer { server.stop() }
        let (alice, bob) = try await Calls.offlineCallee(server)
        let callId = Calls.newCallId()
        try alice.signal("call_initiate", callId: callId, to: bob.id)
        let ended = try alice.expectCall("call_end", callId: callId)
        #expect(ended.payload as NSDictionary == ["callId": callId, "reason": "timeout"] as NSDictionary)
        await Calls.expectSetups(server, "timeout", 1)

        let back = try bob.reconnect(server)
        #expect(try back.expectCall("call_end", callId: callId).payload["reason"] as? String == "timeout")
        try back.expectQuiet()
        #expect(try back.refusedSignal("call_answer", callId: callId, to: alice.id) == "NOT_FOUND")
        try alice.expectQuiet()
    }

    @Test func timeout_firesOnceToBothParties_fromTheSurvivingNode_afterTheStartingNodeStops() async throws {
        let cluster = try await TestCluster(Self.shortRing)
        defer { cluster.stop() }
        let alice = try Phone.online(cluster.nodeA), bob = try Phone.online(cluster.nodeB)
        let callId = try Calls.ring(alice, bob)

        cluster.nodeA.stop()
        let survivor = try Phone.online(cluster.nodeB, alice.identity, whisperId: alice.id)
        #expect(try bob.expectCall("call_end", callId: callId).payload["reason"] as? String == "timeout")
        #expect(try survivor.expectCall("call_end", callId: callId).payload["reason"] as? String == "timeout")
        // Several more sweeps: nothing a second time.
        try await Task.sleep(nanoseconds: 1_500_000_000)
        try bob.expectQuiet()
        try survivor.expectQuiet()
        #expect(try Calls.setups(cluster.nodeB, "timeout") == 1)
    }
}
