import Foundation
import Testing
import WhisperOps
import WhisperTesting

/// At the default level the log does not draw the social graph (docs/security.md "Who talks to
/// whom: what the server keeps"): no info-or-above line names two Whisper IDs, or a group
/// together with a Whisper ID. Per-message and per-pair lines are debug.
@Suite struct LogPrivacyTests {
    @Test func aConversation_atTheDefaultLevel_logsNoLinePairingIdentities() async throws {
        let sink = MemoryLogSink()
        let server = try await TestServer(["WHISPER_LOG_LEVEL": "info"], logSink: sink)
        defer { server.stop() }
        #expect(server.config.logLevel == (try ServerConfig.load(environment: [:])).logLevel)

        let alice = try Phone.online(server), bob = try Phone.online(server), carol = try Phone.online(server)
        // 1:1, live: delivered, receipted, the sender told.
        let message = try alice.sendAccepted(to: bob.id)
        try Self.next("message_received", bob)
        #expect(try bob.ws.receipt(messageId: message.messageId, from: bob.id, to: alice.id, token: bob.token).frameType
                    == "receipt_accepted")
        try Self.next("message_delivered", alice)
        // A call, rung, answered and ended; typing.
        let callId = try Calls.ring(alice, bob)
        try bob.signal("call_answer", callId: callId, to: alice.id)
        try Self.next("call_answer", alice)
        try alice.signal("call_end", callId: callId, to: bob.id)
        try Self.next("call_end", bob)
        try TypingTests.typing(alice, to: bob.id)
        try Self.next("typing", bob)
        // A group, a message to each member, one of them offline (queued, then fetched). From
        // here on carol's presence may reach alice at any moment, so frames are skipped to the
        // expected one.
        let groupId = try alice.createdGroup(members: [bob.id, carol.id])
        try Self.next("group_event", bob)
        try Self.next("group_event", carol)
        carol.ws.socket.close()
        await Messaging.waitForAuthenticated(server, count: 2)
        for member in [bob, carol] {
            try Self.next("message_accepted", alice, send: TestWebSocket.privilegedFrame(
                "group_send_message", token: alice.token, requestId: "gs", extra: alice.groupMessage(groupId, to: member.id)))
        }
        try Self.next("message_received", bob)
        let carolBack = try carol.reconnect(server)
        #expect(try carolBack.fetchAll().messages.count == 1)
        for phone in [alice, bob, carolBack] {
            try Self.next("pong", phone, send: ["type": "ping", "payload": [String: Any]()])
        }

        let lines = sink.lines
        #expect(lines.contains { $0.contains(#""event":"login""#) && $0.contains(alice.id) }, "the log was not captured")
        #expect(lines.filter { !$0.contains(#""level":"debug""#) && Self.pairsIdentities($0) } == [])

        // The same check finds the pairs once debug is on: the lines above were moved, not lost.
        sink.removeAll()
        server.log.level = .debug
        try Self.next("group_created", alice, send: TestWebSocket.privilegedFrame(
            "group_create", token: alice.token, requestId: "gc", extra: ["title": "Team", "memberIds": [bob.id]]))
        try Self.next("group_event", bob)
        try Self.next("message_accepted", alice, send: TestWebSocket.privilegedFrame(
            "send_message", token: alice.token, requestId: "s",
            extra: TestMessage(from: alice.id, to: bob.id).payload(signedBy: alice.identity.signing)))
        let secondCall = Calls.newCallId()
        try alice.signal("call_initiate", callId: secondCall, to: bob.id)
        try Self.next("call_initiate", bob)
        try alice.signal("call_end", callId: secondCall, to: bob.id)
        try Self.next("call_end", bob)
        for event in ["group_created", "call_signal", "message_accepted"] {
            #expect(sink.lines.contains { $0.contains(#""event":"\#(event)""#) && Self.pairsIdentities($0) }, "\(event)")
        }
    }

    /// Reads `phone`'s frames (after sending `frame`, if given) up to the next of `type`.
    static func next(_ type: String, _ phone: Phone, send frame: [String: Any]? = nil) throws {
        if let frame { try phone.ws.sendText(String(decoding: try JSONSerialization.data(withJSONObject: frame), as: UTF8.self)) }
        var skipped: [[String: Any]] = []
        _ = try phone.ws.receive(type: type, skipped: &skipped)
    }

    /// Whether `line` names two different Whisper IDs, or a group id and a Whisper ID.
    static func pairsIdentities(_ line: String) -> Bool {
        let whisperIds = Set(tokens(in: line, prefix: "WSP-", length: 18).map { $0.uppercased() })
        let groupIds = Set(tokens(in: line, prefix: "grp-", length: 40).map { $0.lowercased() })
        return whisperIds.count >= 2 || (!groupIds.isEmpty && !whisperIds.isEmpty)
    }

    /// Every `length`-character run of `line` that starts with `prefix` (case-insensitive).
    static func tokens(in line: String, prefix: String, length: Int) -> [String] {
        var found: [String] = []
        var rest = Substring(line)
        while let range = rest.range(of: prefix, options: .caseInsensitive) {
            let token = rest[range.lowerBound...].prefix(length)
            if token.count == length { found.append(String(token)) }
            rest = rest[range.upperBound...]
        }
        return found
    }
}
