import Foundation
import Testing
import WhisperTesting
@testable import WhisperStores

/// Messages from a blocked identity (docs/protocol.md "Blocking"): acknowledged as usual
/// (`message_accepted`), never delivered, never in the blocker's pending queue; after
/// `unblock` they flow again. The check lives in the message accept script
/// (`MessageScripts.accept` reading `blocked:{to}`), added on the lead's branch: these tests
/// pass once both are merged.
@Suite(.serialized) struct BlockedMessageTests {
    @Test func message_fromABlockedSender_isAccepted_butNeverDeliveredNorQueued_andFlowsAfterAnUnblock() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let alice = try Phone.online(server), bob = try Phone.online(server)
        try alice.blocked(bob.id)
        let dropped = try bob.sendAccepted(to: alice.id)
        // Live: nothing. Queued: nothing, also after a re-login.
        try await Task.sleep(nanoseconds: 300_000_000)
        try alice.expectQuiet()
        #expect(try alice.fetchAll().messages.isEmpty)
        let back = try alice.reconnect(server)
        try back.expectQuiet()
        #expect(try back.fetchAll().messages.isEmpty)
        // The same envelope again is still just acknowledged.
        #expect(try bob.send(dropped).frameType == "message_accepted")
        try bob.expectQuiet()

        try back.unblocked(bob.id)
        let flowing = try bob.sendAccepted(to: back.id)
        let received = try back.ws.receiveJSON()
        #expect(received.frameType == "message_received", "\(received)")
        #expect(received.payload["messageId"] as? String == flowing.messageId)
        #expect(try back.fetchAll().messages.compactMap { $0["messageId"] as? String } == [flowing.messageId])
    }

    @Test func groupMessage_fromABlockedMember_isAccepted_butNeverDeliveredNorQueued() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let alice = try Phone.online(server), bob = try Phone.online(server), carol = try Phone.online(server)
        let groupId = try bob.createdGroup(members: [alice.id, carol.id])
        try alice.expectGroupEvent("created", groupId: groupId)
        try carol.expectGroupEvent("created", groupId: groupId)
        try alice.blocked(bob.id)

        let messageId = UUID().uuidString.lowercased()
        for member in [alice, carol] {
            let reply = try bob.groupSend(bob.groupMessage(groupId, to: member.id, messageId: messageId))
            #expect(reply.frameType == "message_accepted", "\(reply)")
        }
        // Carol, who blocks nobody, gets her envelope; alice gets nothing, live or queued.
        let atCarol = try carol.ws.receiveJSON()
        #expect(atCarol.frameType == "message_received" && atCarol.payload["groupId"] as? String == groupId, "\(atCarol)")
        try await Task.sleep(nanoseconds: 300_000_000)
        try alice.expectQuiet()
        #expect(try alice.fetchAll().messages.isEmpty)

        try alice.unblocked(bob.id)
        let reply = try bob.groupSend(bob.groupMessage(groupId, to: alice.id))
        #expect(reply.frameType == "message_accepted", "\(reply)")
        #expect(try alice.ws.receiveJSON().frameType == "message_received")
    }
}
