import Foundation
import Testing
import WhisperTesting

/// Call signalling over real sockets against real Redis (docs/protocol.md "Calls"): signed
/// frames forwarded byte for byte between the two parties, `call_ringing` to the caller once
/// the callee confirms (the confirmation itself: CallConfirmationTests), held
/// offers for a callee that logs in while it rings, and every refusal with its code.
@Suite(.serialized) struct CallTests {
    @Test func call_ringsIsAnsweredTradesCandidatesAndEnds_whenBothAreOnline() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let alice = try Phone.online(server), bob = try Phone.online(server)
        // Spelt upper case by the caller: forwarded and rung that way, matched in any case.
        let spelt = UUID().uuidString.uppercased(), callId = spelt.lowercased()
        let offer = try alice.signal("call_initiate", callId: spelt, to: bob.id, isVideo: true)
        let received = try bob.expectCall("call_initiate", callId: spelt).payload
        #expect(Set(received.keys) == ["callId", "from", "to", "isVideo", "timestamp", "nonce", "ciphertext", "sig"])
        #expect(received["isVideo"] as? Bool == true && received["ciphertext"] as? String == offer.ciphertext)
        let sig = try #require((received["sig"] as? String).flatMap { Data(base64Encoded: $0) })
        #expect(TestSigningKey.verify(signature: Array(sig), message: TestSHA256.hash(offer.signedBytes),
                                      publicKey: alice.identity.signing.publicKey))
        try bob.confirmCall(spelt)
        let ringing = try alice.expectCall("call_ringing", callId: spelt)
        #expect(ringing.payload.count == 1)

        try bob.signal("call_answer", callId: callId, to: alice.id)
        #expect(try alice.expectCall("call_answer", callId: callId).payload["isVideo"] == nil)
        try bob.signal("call_ice_candidate", callId: callId, to: alice.id)
        try alice.expectCall("call_ice_candidate", callId: callId)
        try alice.signal("call_ice_candidate", callId: spelt, to: bob.id)
        try bob.expectCall("call_ice_candidate", callId: spelt)
        try alice.signal("call_end", callId: callId, to: bob.id)
        #expect(try bob.expectCall("call_end", callId: callId).payload["reason"] == nil)

        // Ended: late candidates find no call, and the id cannot be offered again.
        #expect(try bob.refusedSignal("call_ice_candidate", callId: callId, to: alice.id) == "NOT_FOUND")
        #expect(try alice.refusedSignal("call_initiate", callId: callId, to: bob.id) == "FORBIDDEN")
        await Calls.expectSetups(server, "answered", 1)
        try alice.expectQuiet()
        try bob.expectQuiet()
    }

    @Test func call_isAnsweredAcrossNodes() async throws {
        let cluster = try await TestCluster()
        defer { cluster.stop() }
        let alice = try Phone.online(cluster.nodeA), bob = try Phone.online(cluster.nodeB)
        let callId = try Calls.ring(alice, bob)
        try bob.signal("call_answer", callId: callId, to: alice.id)
        try alice.expectCall("call_answer", callId: callId)
        try alice.signal("call_ice_candidate", callId: callId, to: bob.id)
        try bob.expectCall("call_ice_candidate", callId: callId)
        try bob.signal("call_end", callId: callId, to: alice.id)
        try alice.expectCall("call_end", callId: callId)
        await Calls.expectSetups(cluster.nodeB, "answered", 1)
    }

    @Test func heldOffer_reachesACalleeThatLogsInWhileItRings_withTheCallersCandidates() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let (alice, bob) = try await Calls.offlineCallee(server)
        let callId = Calls.newCallId()
        try alice.signal("call_initiate", callId: callId, to: bob.id)
        let first = try alice.signal("call_ice_candidate", callId: callId, to: bob.id)
        let second = try alice.signal("call_ice_candidate", callId: callId, to: bob.id)
        // Signals of one call are applied in order: this repeated offer is refused after both
        // candidates were stored, and nothing else came (no call_ringing: nobody has the offer).
        #expect(try alice.refusedSignal("call_initiate", callId: callId, to: bob.id) == "FORBIDDEN")
        try alice.expectQuiet()

        let back = try bob.reconnect(server)
        try back.expectCall("call_initiate", callId: callId)
        #expect(try back.expectCall("call_ice_candidate", callId: callId).payload["ciphertext"] as? String == first.ciphertext)
        #expect(try back.expectCall("call_ice_candidate", callId: callId).payload["ciphertext"] as? String == second.ciphertext)
        // Ringing once the device that got the held offer confirms it.
        try alice.expectQuiet()
        try back.confirmCall(callId)
        try alice.expectCall("call_ringing", callId: callId)
        try back.signal("call_answer", callId: callId, to: alice.id)
        try alice.expectCall("call_answer", callId: callId)
        await Calls.expectSetups(server, "answered", 1)
        try back.expectQuiet()
    }

    @Test func callerCancelling_andCalleeRejecting_areCounted_andTheOtherPartyHearsIt() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let alice = try Phone.online(server), bob = try Phone.online(server)
        for (ender, other, result) in [(bob, alice, "rejected"), (alice, bob, "failed")] {
            let callId = try Calls.ring(alice, bob)
            try ender.signal("call_end", callId: callId, to: other.id)
            try other.expectCall("call_end", callId: callId)
            await Calls.expectSetups(server, result, 1)
            // The ended call is gone for the answer that comes too late.
            #expect(try bob.refusedSignal("call_answer", callId: callId, to: alice.id) == "NOT_FOUND")
        }
        #expect(try Calls.setups(server, "answered") == 0)
    }

    @Test func callEnd_forAnOfflineParty_isKeptForItsNextLogin() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let alice = try Phone.online(server), bob = try Phone.online(server)
        let callId = try Calls.ring(alice, bob)
        try bob.signal("call_answer", callId: callId, to: alice.id)
        try alice.expectCall("call_answer", callId: callId)
        alice.ws.socket.close()
        await Messaging.waitForAuthenticated(server, count: 1)
        try bob.signal("call_end", callId: callId, to: alice.id)
        try bob.expectQuiet()
        let back = try alice.reconnect(server)
        try back.expectCall("call_end", callId: callId)
        try back.expectQuiet()
    }

    @Test func refusals_getTheirCodes_neverHijackTheCall_andTheSocketsKeepWorking() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let alice = try Phone.online(server), bob = try Phone.online(server), carol = try Phone.online(server)
        let callId = try Calls.ring(alice, bob)

        // A third party, on this call or offering it anew.
        #expect(try carol.refusedSignal("call_ice_candidate", callId: callId, to: bob.id) == "FORBIDDEN")
        #expect(try carol.refusedSignal("call_end", callId: callId, to: alice.id) == "FORBIDDEN")
        #expect(try carol.refusedSignal("call_initiate", callId: callId, to: bob.id) == "FORBIDDEN")
        #expect(try bob.refusedSignal("call_initiate", callId: callId, to: alice.id) == "FORBIDDEN")
        // A party aiming at someone else, and the caller answering its own call.
        #expect(try alice.refusedSignal("call_ice_candidate", callId: callId, to: carol.id) == "FORBIDDEN")
        #expect(try alice.refusedSignal("call_answer", callId: callId, to: bob.id) == "FORBIDDEN")
        // Cheap checks before the signature, the signature, then the state.
        #expect(try alice.refusedSignal("call_ice_candidate", callId: callId, to: bob.id, edit: { $0.from = carol.id }) == "FORBIDDEN")
        #expect(try alice.refusedSignal("call_ice_candidate", callId: callId, to: bob.id,
                                        edit: { $0.timestamp -= 11 * 60 * 1000 }) == "INVALID_TIMESTAMP")
        let forged = Data(TestSigningKey.random().sign([1, 2, 3])).base64EncodedString()
        #expect(try alice.refusedSignal("call_ice_candidate", callId: callId, to: bob.id, extra: ["sig": forged]) == "AUTH_FAILED")
        for type in ["call_answer", "call_ice_candidate", "call_end"] {
            #expect(try bob.refusedSignal(type, callId: Calls.newCallId(), to: alice.id) == "NOT_FOUND", "\(type)")
        }
        #expect(try alice.refusedSignal("call_initiate", callId: Calls.newCallId(), to: Identity.unregisteredID()) == "NOT_FOUND")
        // Shape: isVideo only on an offer and always there; not to oneself; a bad id.
        #expect(try alice.refusedSignal("call_initiate", callId: Calls.newCallId(), to: bob.id,
                                        edit: { $0.isVideo = nil }) == "INVALID_PAYLOAD")
        #expect(try alice.refusedSignal("call_ice_candidate", callId: callId, to: bob.id, extra: ["isVideo": true]) == "INVALID_PAYLOAD")
        #expect(try alice.refusedSignal("call_ice_candidate", callId: callId, to: alice.id) == "INVALID_PAYLOAD")
        #expect(try alice.refusedSignal("call_end", callId: "not-a-uuid", to: bob.id) == "INVALID_PAYLOAD")

        // The call is untouched: bob answers it, and it reaches alice alone.
        try bob.signal("call_answer", callId: callId, to: alice.id)
        try alice.expectCall("call_answer", callId: callId)
        for phone in [alice, bob, carol] { try phone.expectQuiet() }
    }

    @Test func callRateLimit_refusesWithRetryAfter_andTheSocketKeepsWorking() async throws {
        let server = try await TestServer(["WHISPER_RATE_CALL": "3/60"])
        defer { server.stop() }
        let alice = try Phone.online(server), bob = try Phone.online(server)
        let callId = try Calls.ring(alice, bob)
        for _ in 0..<2 {
            try alice.signal("call_ice_candidate", callId: callId, to: bob.id)
            try bob.expectCall("call_ice_candidate", callId: callId)
        }
        try alice.signal("call_ice_candidate", callId: callId, to: bob.id, requestId: "limited")
        let refused = try alice.ws.receiveJSON()
        #expect(refused.errorCode == "RATE_LIMITED", "\(refused)")
        #expect(refused["requestId"] as? String == "limited")
        #expect((refused.payload["retryAfterMs"] as? Int ?? 0) > 0)
        #expect(try Identity.metricValue(server, "whisper_rate_limited_total{action=\"call\"}") == 1)
        try alice.expectQuiet()
        try bob.expectQuiet()
    }
}
