import Foundation
import Testing
import WhisperStorage
import WhisperTesting

/// The membership check of group sends across nodes (docs/protocol.md "Groups"): each loop caches
/// memberships, and no cache may let a removed member's message through once the owner has
/// `group_updated`, on any node.
@Suite(.serialized) struct GroupMembershipTests {
    @Test func removal_onNodeA_isEnforcedOnNodeB_asSoonAsTheOwnerHasGroupUpdated() async throws {
        let cluster = try await TestCluster(["WHISPER_RATE_SEND": "1000/10"])
        defer { cluster.stop() }
        let alice = try Phone.online(cluster.nodeA)
        let bob = try Phone.online(cluster.nodeB), carol = try Phone.online(cluster.nodeB)
        // Several rounds: the race is between the owner's reply and node B's notice.
        for round in 0..<5 {
            let groupId = try alice.createdGroup(title: "round \(round)", members: [bob.id, carol.id])
            try bob.expectGroupEvent("created", groupId: groupId)
            try carol.expectGroupEvent("created", groupId: groupId)
            // Both sends fill node B's cache with "bob is a member".
            #expect(try bob.groupSend(bob.groupMessage(groupId, to: carol.id)).frameType == "message_accepted")
            #expect(try carol.ws.receiveJSON().frameType == "message_received")
            #expect(try carol.groupSend(carol.groupMessage(groupId, to: bob.id)).frameType == "message_accepted")
            #expect(try bob.ws.receiveJSON().frameType == "message_received")

            let removed = try alice.updateGroup(groupId, remove: [bob.id])
            #expect(removed.frameType == "group_updated", "\(removed)")
            // At once, with no wait: bob may not send, and nobody may send to bob.
            let fromBob = try bob.groupSend(bob.groupMessage(groupId, to: carol.id))
            #expect(fromBob.errorCode == "FORBIDDEN", "round \(round): \(fromBob)")
            let toBob = try carol.groupSend(carol.groupMessage(groupId, to: bob.id))
            #expect(toBob.errorCode == "FORBIDDEN", "round \(round): \(toBob)")
            // Skip what is still on the wire for bob and carol this round (bob's message, events).
            try bob.drain()
            try carol.drain()
        }
    }

    @Test func aStaleCachedMembership_isRefusedByTheEpochCheck_evenWithoutAChangeNotice() async throws {
        let cluster = try await TestCluster()
        defer { cluster.stop() }
        let alice = try Phone.online(cluster.nodeA)
        let bob = try Phone.online(cluster.nodeB), carol = try Phone.online(cluster.nodeB)
        let groupId = try alice.createdGroup(members: [bob.id, carol.id])
        try bob.expectGroupEvent("created", groupId: groupId)
        try carol.expectGroupEvent("created", groupId: groupId)
        #expect(try bob.groupSend(bob.groupMessage(groupId, to: carol.id)).frameType == "message_accepted")
        #expect(try carol.ws.receiveJSON().frameType == "message_received")

        // Remove bob behind the server's back: no epoch change, no notice. Node B's cache still
        // says "member" — and is used (proves the send path reads the cache, not the database).
        let db = try Identity.database()
        defer { db.shutdown() }
        _ = try await db.query("DELETE FROM group_members WHERE group_id = $1 AND whisper_id = $2",
                               [.text(groupId), .text(bob.id)])
        #expect(try bob.groupSend(bob.groupMessage(groupId, to: carol.id)).frameType == "message_accepted")
        #expect(try carol.ws.receiveJSON().frameType == "message_received")
        // A new epoch alone (still no notice): the accept refuses the stale stamp, node B
        // re-reads the membership and answers FORBIDDEN.
        let redis = try Identity.redis()
        _ = try redis.command(["SET", cluster.prefix + "group-epoch:{" + groupId + "}", "test-epoch"])
        #expect(try bob.groupSend(bob.groupMessage(groupId, to: carol.id)).errorCode == "FORBIDDEN")
        #expect(try carol.groupSend(carol.groupMessage(groupId, to: bob.id)).errorCode == "FORBIDDEN")
        try carol.expectQuiet()
    }

    @Test func anAddition_onNodeA_letsTheNewMemberSendOnNodeB_onceItsEventArrived() async throws {
        let cluster = try await TestCluster()
        defer { cluster.stop() }
        let alice = try Phone.online(cluster.nodeA)
        let bob = try Phone.online(cluster.nodeB), carol = try Phone.online(cluster.nodeB)
        let groupId = try alice.createdGroup(members: [bob.id])
        try bob.expectGroupEvent("created", groupId: groupId)
        // Node B caches "carol is not a member".
        #expect(try carol.groupSend(carol.groupMessage(groupId, to: bob.id)).errorCode == "FORBIDDEN")
        #expect(try alice.updateGroup(groupId, add: [carol.id]).frameType == "group_updated")
        try bob.expectGroupEvent("updated", groupId: groupId)
        // The notice reached node B before the event it published after it.
        try carol.expectGroupEvent("updated", groupId: groupId)
        #expect(try carol.groupSend(carol.groupMessage(groupId, to: bob.id)).frameType == "message_accepted")
        #expect(try bob.ws.receiveJSON().frameType == "message_received")
    }
}

extension Phone {
    /// Reads whatever the server still sends this phone until a ping's pong.
    func drain() throws {
        try ws.sendText(#"{"type":"ping","payload":{}}"#)
        while try ws.receiveJSON().frameType != "pong" {}
    }
}
