import Foundation
import Testing
import WhisperClient
import WhisperProtocol
import WhisperTesting

/// Call signalling and TURN credentials through the client helpers, against the real server
/// (and the coturn that scripts/test starts): docs/protocol.md "Calls", "TURN credentials".
@Suite(.serialized) struct ClientCallTests {
    static func calls(_ device: ClientDevice) -> [CallSignal] {
        device.events.compactMap { if case .call(let signal) = $0 { signal } else { nil } }
    }

    @Test func aCall_offerRingingAnswerCandidatesAndHangUp_travelSignedAndBoxed() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let alice = try ClientDevice.online(server), bob = try ClientDevice.online(server)
        let (aliceId, bobId) = (try alice.id, try bob.id)

        let callId = try alice.session.startCall(to: bobId, isVideo: true, offer: Array("v=0 offer".utf8))
        try bob.pump { !Self.calls(bob).isEmpty }
        let offer = Self.calls(bob)[0]
        #expect(offer.kind == .initiate && offer.callId == callId && offer.from == aliceId && offer.isVideo == true)
        #expect(offer.text == "v=0 offer")
        // Bob's session confirmed the offer on its own (call_received): Alice hears it ring.
        try alice.pump { alice.events.contains { if case .callRinging(callId) = $0 { true } else { false } } }

        try bob.session.answerCall(callId, caller: aliceId, answer: Array("v=0 answer".utf8))
        try bob.session.sendIceCandidate(Array("candidate:1 1 udp 1 127.0.0.1 5000 typ host".utf8), callId: callId, to: aliceId)
        try alice.pump { Self.calls(alice).count == 2 }
        #expect(Self.calls(alice).map(\.kind) == [.answer, .iceCandidate])
        #expect(Self.calls(alice).map(\.text) == ["v=0 answer", "candidate:1 1 udp 1 127.0.0.1 5000 typ host"])
        #expect(Self.calls(alice).allSatisfy { $0.callId == callId && $0.from == bobId && $0.isVideo == nil })

        try alice.session.endCall(callId, peer: bobId, note: Array("bye".utf8))
        try bob.pump { Self.calls(bob).count == 2 }
        #expect(Self.calls(bob)[1].kind == .end && Self.calls(bob)[1].text == "bye")
        // A signal on the ended call is refused; the refusal reaches the app as an event.
        try bob.session.sendIceCandidate(Array("late".utf8), callId: callId, to: aliceId)
        try bob.pump {
            bob.events.contains { if case .refused("call_ice_candidate", .server("NOT_FOUND", _, _)) = $0 { true } else { false } }
        }
        #expect(!bob.events.contains { if case .rejected = $0 { true } else { false } })
    }

    @Test func turnCredentials_allocateARelayOnCoturn() async throws {
        let environment = ProcessInfo.processInfo.environment
        let port = try #require(environment["WHISPER_TEST_TURN_PORT"], "run through scripts/test")
        let secret = try #require(environment["WHISPER_TEST_TURN_SECRET"])
        let server = try await TestServer(["WHISPER_TURN_SECRET": secret, "WHISPER_TURN_URLS": "turn:127.0.0.1:\(port)?transport=udp",
                                           "WHISPER_TURN_TTL_SECONDS": "600"])
        defer { server.stop() }
        let alice = try ClientDevice.online(server)
        let credentials = try alice.session.turnCredentials()
        #expect(credentials.urls == ["turn:127.0.0.1:\(port)?transport=udp"] && credentials.ttlSeconds == 600)
        #expect(credentials.username.hasSuffix(":" + (try alice.id).string))
        let allocate = { (password: String) async -> Bool in
            (try? await Subprocess.run("/usr/bin/turnutils_uclient", ["-y", "-n", "1", "-m", "1", "-u", credentials.username,
                                                                      "-w", password, "-p", port, "127.0.0.1"])) != nil
        }
        #expect(await allocate(credentials.credential))
        // One character changed (a credential that starts with "A", one in 64, gets a "B").
        let credential = credentials.credential
        #expect(await !allocate((credential.first == "A" ? "B" : "A") + credential.dropFirst()))
    }

    @Test func withoutTURNConfigured_theRequestFails_andTheSessionGoesOn() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let alice = try ClientDevice.online(server), bob = try ClientDevice.online(server)
        let outcome = Result { () throws(ClientError) in try alice.session.turnCredentials() }
        guard case .failure(.server(code: "INTERNAL_ERROR", _, _)) = outcome else {
            Issue.record("expected INTERNAL_ERROR, got \(outcome)")
            return
        }
        try alice.session.send(text: "still fine", to: try bob.id)
        try bob.pump { bob.messages.map(\.text) == ["still fine"] }
    }
}
