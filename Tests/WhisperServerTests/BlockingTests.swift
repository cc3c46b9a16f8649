import Foundation
import Testing
import WhisperTesting

/// Blocking over real sockets against real PostgreSQL and Redis (docs/protocol.md "Blocking"):
/// the frames and their refusals, the list surviving a re-login, the Redis copy rebuilt from
/// PostgreSQL at the blocker's login, and nothing of the blocked identity reaching the
/// blocker — no call (live or held), no typing, no presence — while the blocked party hears
/// nothing special. Messages are `BlockedMessageTests`.
@Suite(.serialized) struct BlockingTests {
    @Test func block_list_unblock_roundTrip_andTheListSurvivesARelogin() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let alice = try Phone.online(server), bob = try Phone.online(server), carol = try Phone.online(server)
        #expect(try alice.blockList() == [])
        try alice.blocked(bob.id)
        try alice.blocked(carol.id)
        try alice.blocked(bob.id)  // a repeat changes nothing
        #expect(try alice.blockList() == [bob.id, carol.id])
        await Blocking.expectRedisCopy(server, of: alice.id, [bob.id, carol.id])

        let back = try alice.reconnect(server)
        #expect(try back.blockList() == [bob.id, carol.id])
        try back.unblocked(bob.id)
        try back.unblocked(bob.id)  // not blocked: still unblocked
        #expect(try back.blockList() == [carol.id])
        await Blocking.expectRedisCopy(server, of: alice.id, [carol.id])
        try back.unblocked(carol.id)
        #expect(try back.blockList() == [])
        await Blocking.expectRedisCopy(server, of: alice.id, nil)
        // The other side's list is its own.
        #expect(try bob.blockList() == [])
    }

    @Test func refusals_getTheirCodes_andTheSocketKeepsWorking() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let alice = try Phone.online(server), bob = try Phone.online(server)
        #expect(try alice.block(alice.id).errorCode == "INVALID_PAYLOAD")
        #expect(try alice.block(Identity.withBadChecksum(bob.id)).errorCode == "INVALID_PAYLOAD")
        #expect(try alice.block(bob.id.lowercased()).errorCode == "INVALID_PAYLOAD")
        #expect(try alice.unblock("WSP-1234").errorCode == "INVALID_PAYLOAD")
        let unknown = try alice.block(Identity.unregisteredID())
        #expect(unknown.errorCode == "NOT_FOUND", "\(unknown)")
        #expect(unknown["requestId"] as? String == "b")
        let extra = TestWebSocket.privilegedFrame("block", token: alice.token, extra: ["whisperId": bob.id, "why": "spam"])
        #expect(try alice.ws.request(extra).errorCode == "INVALID_PAYLOAD")
        let listExtra = TestWebSocket.privilegedFrame("blocks_list", token: alice.token, extra: ["whisperId": bob.id])
        #expect(try alice.ws.request(listExtra).errorCode == "INVALID_PAYLOAD")
        let anonymous = try TestWebSocket(port: server.publicPort)
        for type in ["block", "unblock", "blocks_list"] {
            let reply = try anonymous.request(TestWebSocket.privilegedFrame(type, token: nil, extra: ["whisperId": bob.id]))
            #expect(reply.errorCode == "NOT_REGISTERED", "\(type): \(reply)")
        }
        #expect(try alice.blockList() == [])
        try alice.expectQuiet()
    }

    @Test func theList_holdsTheLimit_atN_andRefusesNPlusOne_untilAnUnblock() async throws {
        let server = try await TestServer(["WHISPER_MAX_BLOCKS_PER_USER": "2"])
        defer { server.stop() }
        let alice = try Phone.online(server)
        let others = try (0..<3).map { _ in try Phone.online(server).id }
        try alice.blocked(others[0])
        try alice.blocked(others[1])
        let full = try alice.block(others[2])
        #expect(full.errorCode == "INVALID_PAYLOAD", "\(full)")
        #expect((full.payload["message"] as? String)?.contains("2") == true, "\(full)")
        try alice.blocked(others[1])  // a repeat of a recorded block is no new entry
        #expect(try alice.blockList() == Array(others.prefix(2)))
        try alice.unblocked(others[0])
        try alice.blocked(others[2])
        #expect(try alice.blockList() == [others[1], others[2]])
    }

    @Test func blockFrames_chargeTheGroupRateLimit() async throws {
        let server = try await TestServer(["WHISPER_RATE_GROUP": "2/60"])
        defer { server.stop() }
        let alice = try Phone.online(server), bob = try Phone.online(server)
        try alice.blocked(bob.id)
        try alice.unblocked(bob.id)
        let refused = try alice.block(bob.id)
        #expect(refused.errorCode == "RATE_LIMITED", "\(refused)")
        #expect((refused.payload["retryAfterMs"] as? Int ?? 0) > 0)
        let list = try alice.ws.request(TestWebSocket.privilegedFrame("blocks_list", token: alice.token))
        #expect(list.errorCode == "RATE_LIMITED", "\(list)")
    }

    // MARK: Calls

    @Test func aBlockedCaller_neverRings_theBlocker_andItsCallTimesOutForItAlone() async throws {
        let server = try await TestServer(CallTimeoutTests.shortRing)
        defer { server.stop() }
        let alice = try Phone.online(server), bob = try Phone.online(server)
        try alice.blocked(bob.id)
        let callId = Calls.newCallId()
        try bob.signal("call_initiate", callId: callId, to: alice.id)
        try bob.signal("call_ice_candidate", callId: callId, to: alice.id)
        // Bob hears what an unanswered call sounds like: no call_ringing, no error, then the timeout.
        let ended = try bob.expectCall("call_end", callId: callId)
        #expect(ended.payload as NSDictionary == ["callId": callId, "reason": "timeout"] as NSDictionary)
        await Calls.expectSetups(server, "timeout", 1)
        // Alice never heard of it: no offer, no candidate, no call_end; to her it does not exist.
        try alice.expectQuiet()
        #expect(try alice.refusedSignal("call_answer", callId: callId, to: bob.id) == "NOT_FOUND")
        try bob.expectQuiet()

        try alice.unblocked(bob.id)
        try Calls.ring(bob, alice)
    }

    @Test func aBlockedCallersCall_isUnknownToTheBlocker_andItsCancelReachesNobody() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let alice = try Phone.online(server), bob = try Phone.online(server)
        try alice.blocked(bob.id)
        let callId = Calls.newCallId()
        try bob.signal("call_initiate", callId: callId, to: alice.id)
        await Blocking.expectCallStored(server, callId)
        // While it rings for bob, alice cannot signal on it: she never heard of it.
        #expect(try alice.refusedSignal("call_answer", callId: callId, to: bob.id) == "NOT_FOUND")
        #expect(try alice.refusedSignal("call_end", callId: callId, to: bob.id) == "NOT_FOUND")
        try bob.signal("call_end", callId: callId, to: alice.id)
        await Calls.expectSetups(server, "failed", 1)
        #expect(try bob.refusedSignal("call_ice_candidate", callId: callId, to: alice.id) == "NOT_FOUND")
        try alice.expectQuiet()
    }

    @Test func anOfflineBlocker_getsNoHeldOffer_andNoCallEnd_atItsLogin() async throws {
        let server = try await TestServer(CallTimeoutTests.shortRing)
        defer { server.stop() }
        let (bob, alice) = try await Blocking.offlineBlocker(server)
        let callId = Calls.newCallId()
        try bob.signal("call_initiate", callId: callId, to: alice.id)
        await Blocking.expectCallStored(server, callId)
        // Nothing is held for alice, so nothing is pushed either (the push goes with a held offer).
        #expect(try Blocking.exists(server, "calls-held:{" + alice.id + "}") == false)
        try await Blocking.expectNothingAtLogin(server, alice, callId: callId, from: bob)
        try bob.expectQuiet()
    }

    @Test func anOfferHeldBeforeTheBlockReachedRedis_isNotDelivered_andEndsForTheCallerAlone() async throws {
        let server = try await TestServer(CallTimeoutTests.shortRing)
        defer { server.stop() }
        let (bob, alice) = try await Blocking.offlineBlocker(server)
        // Redis lost alice's copy: bob's offer is held for her like any other.
        _ = try Identity.redis().command(["DEL", server.config.redisPrefix + "blocked:{" + alice.id + "}"])
        let callId = Calls.newCallId()
        try bob.signal("call_initiate", callId: callId, to: alice.id)
        #expect(await eventually { (try? Blocking.exists(server, "calls-held:{" + alice.id + "}")) == true })
        // Her login rewrites the copy before anything is sent to her: the offer stays unseen.
        try await Blocking.expectNothingAtLogin(server, alice, callId: callId, from: bob)
    }

    // MARK: Typing and presence

    @Test func typing_fromABlockedPeer_isDropped_andFlowsAgainAfterAnUnblock() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let (alice, bob) = try TypingTests.peers(server, server)
        try bob.blocked(alice.id)
        try TypingTests.typing(alice, to: bob.id)
        try alice.expectQuiet()
        try await Task.sleep(nanoseconds: 300_000_000)
        try bob.expectQuiet()
        // Bob blocking alice does not stop his own signals to her.
        try TypingTests.typing(bob, to: alice.id)
        #expect(try alice.ws.receiveJSON().payload as NSDictionary == ["from": bob.id, "isTyping": true] as NSDictionary)

        try bob.unblocked(alice.id)
        try TypingTests.typing(alice, to: bob.id, false)
        #expect(try bob.ws.receiveJSON().payload as NSDictionary == ["from": alice.id, "isTyping": false] as NSDictionary)
    }

    @Test func presence_isHiddenBothWays_betweenTheBlockerAndTheBlocked() async throws {
        let server = try await TestServer(PresenceTests.immediate)
        defer { server.stop() }
        // Alice, bob and carol are all direct peers of each other.
        let alice = try Phone.online(server), bob = try Phone.online(server), carol = try Phone.online(server)
        for (sender, recipient) in [(alice, bob), (alice, carol), (bob, carol)] {
            try sender.sendAccepted(to: recipient.id)
            #expect(try recipient.ws.receiveJSON().frameType == "message_received")
        }
        try bob.blocked(alice.id)

        // Alice (blocked) leaves: carol hears it, bob (the blocker) does not.
        await PresenceTests.disconnect(alice, from: server, leaving: 2)
        PresenceTests.expectPresence(try carol.ws.receiveJSON(), of: alice.id, "offline")
        let aliceBack = try Phone.online(server, alice.identity, whisperId: alice.id)
        PresenceTests.expectPresence(try carol.ws.receiveJSON(), of: alice.id, "online")
        // Bob (the blocker) leaves and returns: carol hears both, alice neither.
        await PresenceTests.disconnect(bob, from: server, leaving: 2)
        PresenceTests.expectPresence(try carol.ws.receiveJSON(), of: bob.id, "offline")
        let bobBack = try Phone.online(server, bob.identity, whisperId: bob.id)
        PresenceTests.expectPresence(try carol.ws.receiveJSON(), of: bob.id, "online")
        try await Task.sleep(nanoseconds: 300_000_000)
        try aliceBack.expectQuiet()
        try bobBack.expectQuiet()

        try bobBack.unblocked(alice.id)
        await PresenceTests.disconnect(aliceBack, from: server, leaving: 2)
        PresenceTests.expectPresence(try bobBack.ws.receiveJSON(), of: alice.id, "offline")
    }

    // MARK: The Redis copy

    @Test func aRedisThatLostTheCopy_isRebuiltFromPostgreSQL_atTheBlockersNextLogin() async throws {
        let server = try await TestServer(CallTimeoutTests.shortRing)
        defer { server.stop() }
        let alice = try Phone.online(server), bob = try Phone.online(server), carol = try Phone.online(server)
        try alice.blocked(bob.id)
        await Blocking.expectRedisCopy(server, of: alice.id, [bob.id])

        // Everything of this server in Redis is gone, sessions included: both log in again.
        try Blocking.flushRedis(of: server)
        #expect(try Blocking.redisCopy(server, of: alice.id) == nil)
        let bobAgain = try bob.reconnect(server)
        let aliceAgain = try alice.reconnect(server)
        await Blocking.expectRedisCopy(server, of: alice.id, [bob.id])
        let callId = Calls.newCallId()
        try bobAgain.signal("call_initiate", callId: callId, to: aliceAgain.id)
        #expect(try bobAgain.expectCall("call_end", callId: callId).payload["reason"] as? String == "timeout")
        try aliceAgain.expectQuiet()

        // A copy that drifted (a stray member, a lost one) is replaced by PostgreSQL's list.
        let redis = try Identity.redis()
        let key = server.config.redisPrefix + "blocked:{" + alice.id + "}"
        _ = try redis.command(["SADD", key, carol.id])
        _ = try redis.command(["SREM", key, bob.id])
        let aliceThird = try aliceAgain.reconnect(server)
        await Blocking.expectRedisCopy(server, of: alice.id, [bob.id])
        // With no blocks left, the next login leaves no key at all.
        try aliceThird.unblocked(bob.id)
        _ = try redis.command(["SADD", key, carol.id])
        _ = try aliceThird.reconnect(server)
        await Blocking.expectRedisCopy(server, of: alice.id, nil)
    }
}
