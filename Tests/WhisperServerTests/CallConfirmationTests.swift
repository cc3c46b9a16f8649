import Foundation
import Testing
import WhisperTesting

/// A call rings where a device confirms it (contract §15, docs/protocol.md "Calls"): the
/// caller hears `call_ringing` only after the callee's `call_received`; an offer on a socket
/// that looks live but that nobody confirms in time is pushed as to an offline callee (here
/// the FCM call push, to a fake FCM) and stays held for the next login.
@Suite(.serialized) struct CallConfirmationTests {
    /// Long enough for a phone on loopback to confirm on a loaded machine, short for a test.
    static let confirmMillis = 1_500
    static let shortConfirm = ["WHISPER_CALL_CONFIRM_TIMEOUT_MS": "\(confirmMillis)"]

    /// A server pushing to a fake FCM with a short confirmation deadline, and a callee whose
    /// device is an Android phone with an FCM token.
    static func pushingServer() async throws -> (FakeFCM, TestServer) {
        let fake = try await FakeFCM()
        let server = try await TestServer(fake.serverEnvironment.merging(shortConfirm) { $1 })
        return (fake, server)
    }

    static func android(_ phone: Phone, token: String) throws {
        let reply = try phone.ws.privileged("update_tokens", token: phone.token, extra: ["pushToken": token, "platform": "android"])
        #expect(reply.frameType == "tokens_updated", "\(reply)")
    }

    /// The fake's `messages:send` bodies that are call pushes for `callId`.
    static func callPushes(_ fake: FakeFCM, _ callId: String) -> [String] {
        fake.sends.filter { $0.contains(#""type":"call""#) && $0.contains(callId) }
    }

    @Test func theCallerHearsRinging_onlyAfterTheCalleeConfirms_onceAcrossRepeats() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let alice = try Phone.online(server), bob = try Phone.online(server), carol = try Phone.online(server)
        let spelt = UUID().uuidString.uppercased(), callId = spelt.lowercased()
        try alice.signal("call_initiate", callId: spelt, to: bob.id)
        try bob.expectCall("call_initiate", callId: spelt)
        // The offer is on bob's socket, but nothing confirmed it yet: silence for the caller.
        try alice.expectQuiet()

        // Neither a stranger nor the caller itself can make it ring.
        #expect(try carol.callReceived(callId).errorCode == "FORBIDDEN")
        #expect(try alice.callReceived(callId).errorCode == "FORBIDDEN")
        try alice.expectQuiet()

        // The reply echoes the callee's own spelling; the caller hears its own.
        try bob.confirmCall(callId)
        try alice.expectCall("call_ringing", callId: spelt)
        // A repeat is answered the same way and does nothing.
        try bob.confirmCall(spelt)
        try alice.expectQuiet()
        try bob.signal("call_answer", callId: callId, to: alice.id)
        try alice.expectCall("call_answer", callId: callId)
        try bob.confirmCall(callId)
        try alice.expectQuiet()

        // Unknown and ended calls, and a malformed id.
        #expect(try bob.callReceived(Calls.newCallId()).errorCode == "NOT_FOUND")
        try alice.signal("call_end", callId: callId, to: bob.id)
        try bob.expectCall("call_end", callId: callId)
        #expect(try bob.callReceived(callId).errorCode == "NOT_FOUND")
        #expect(try bob.callReceived("not-a-uuid").errorCode == "INVALID_PAYLOAD")
        let extra = try bob.ws.request(TestWebSocket.privilegedFrame("call_received", token: bob.token,
                                                                     extra: ["callId": callId, "sig": "AAAA"]))
        #expect(extra.errorCode == "INVALID_PAYLOAD", "\(extra)")
        for phone in [alice, bob, carol] { try phone.expectQuiet() }
    }

    @Test func aCalleeThatNeverConfirms_isPushedAfterTheDeadline_andRingsFromItsNextLogin() async throws {
        let (fake, server) = try await Self.pushingServer()
        defer { server.stop(); fake.stop() }
        let alice = try Phone.online(server), bob = try Phone.online(server)
        try Self.android(bob, token: "fcm-unconfirmed-1")

        // Confirmed in time: no push (answered, so no longer held for a login either).
        let answered = try Calls.ring(alice, bob)
        try bob.signal("call_answer", callId: answered, to: alice.id)
        try alice.expectCall("call_answer", callId: answered)
        // Not confirmed (a suspended app): the socket got the offer, yet the call push follows.
        let callId = Calls.newCallId()
        try alice.signal("call_initiate", callId: callId, to: bob.id)
        try bob.expectCall("call_initiate", callId: callId)
        let started = Date()
        #expect(await eventually(within: 10) { Self.callPushes(fake, callId).count == 1 }, "\(fake.sends)")
        #expect(Date().timeIntervalSince(started) >= Double(Self.confirmMillis - 100) / 1000, "pushed before the deadline")
        #expect(Self.callPushes(fake, answered).isEmpty, "a confirmed call was pushed")
        #expect(try Identity.metricValue(server, "whisper_call_unconfirmed_total") == 1)
        try alice.expectQuiet()

        // The app wakes and logs in again: the held offer, and ringing once it is confirmed.
        let back = try bob.reconnect(server)
        try back.expectCall("call_initiate", callId: callId)
        try back.confirmCall(callId)
        try alice.expectCall("call_ringing", callId: callId)
        try await Task.sleep(nanoseconds: UInt64(Self.confirmMillis + 1_000) * 1_000_000)
        #expect(Self.callPushes(fake, callId).count == 1, "confirmed at the login: no second push")
        try back.signal("call_answer", callId: callId, to: alice.id)
        try alice.expectCall("call_answer", callId: callId)
        try back.expectQuiet()
    }

    /// A route left behind by a socket that is gone (its close not yet seen): the offer goes
    /// nowhere, and the missing confirmation sends the call push.
    @Test func anOfferToAStaleRoute_endsInTheCallPush_andIsHeldForTheLogin() async throws {
        let (fake, server) = try await Self.pushingServer()
        defer { server.stop(); fake.stop() }
        let alice = try Phone.online(server), bob = try Phone.online(server)
        try Self.android(bob, token: "fcm-stale-1")
        let redis = try Identity.redis(), routeKey = server.config.redisPrefix + "route:{" + bob.id + "}"
        let stale = try #require(try redis.command(["GET", routeKey]).text)
        bob.ws.socket.close()
        await Messaging.waitForAuthenticated(server, count: 1)
        _ = try redis.command(["SET", routeKey, stale])

        let callId = Calls.newCallId()
        try alice.signal("call_initiate", callId: callId, to: bob.id)
        #expect(await eventually(within: 10) { Self.callPushes(fake, callId).count == 1 }, "\(fake.sends)")
        try alice.expectQuiet()
        let back = try bob.reconnect(server)
        try back.expectCall("call_initiate", callId: callId)
        try back.confirmCall(callId)
        try alice.expectCall("call_ringing", callId: callId)
    }

    @Test func aBlockedCallersCall_neverRings_norPushes_theBlocker() async throws {
        let (fake, server) = try await Self.pushingServer()
        defer { server.stop(); fake.stop() }
        let alice = try Phone.online(server), bob = try Phone.online(server)
        try Self.android(alice, token: "fcm-blocker-1")
        try alice.blocked(bob.id)
        let callId = Calls.newCallId()
        try bob.signal("call_initiate", callId: callId, to: alice.id)
        await Blocking.expectCallStored(server, callId)
        // Even her confirming it (she cannot know the id, but try) finds no call.
        #expect(try alice.callReceived(callId).errorCode == "NOT_FOUND")
        try await Task.sleep(nanoseconds: UInt64(Self.confirmMillis + 1_000) * 1_000_000)
        #expect(fake.sends.isEmpty, "\(fake.sends)")
        #expect(try Identity.metricValue(server, "whisper_call_unconfirmed_total") == 0)
        try alice.expectQuiet()
        try bob.expectQuiet()
    }
}
