import Foundation
import Testing
import WhisperTesting

/// `group_get` and `groups_list` over real sockets against real PostgreSQL and Redis
/// (docs/protocol.md "Groups", "Resync"): an app that lost its events rebuilds its groups and
/// fetches only the ones whose version moved; a non-member learns nothing about a group.
@Suite(.serialized) struct GroupResyncTests {
    @Test func groupGet_answersAMemberTheGroupAndItsVersion_andEveryChangeRaisesTheVersion() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let alice = try Phone.online(server), bob = try Phone.online(server), carol = try Phone.online(server)
        let created = try alice.createGroup(title: "Climbing", members: [bob.id])
        #expect(created.payload["version"] as? Int64 == 1, "\(created)")
        let groupId = created.payload["groupId"] as? String ?? ""
        #expect(try bob.expectGroupEvent("created", groupId: groupId).payload["version"] as? Int64 == 1)

        let info = try bob.getGroup(groupId)
        #expect(info.frameType == "group_info", "\(info)")
        #expect(info["requestId"] as? String == "gg")
        #expect(info.payload["groupId"] as? String == groupId)
        #expect(info.payload["title"] as? String == "Climbing")
        #expect(info.payload["ownerId"] as? String == alice.id)
        // Members who joined together (the creation) are ordered by Whisper ID.
        let founders = [alice.id, bob.id].sorted()
        #expect(info.payload["memberIds"] as? [String] == founders)
        #expect(info.payload["version"] as? Int64 == 1)
        #expect(Set(info.payload.keys) == ["groupId", "title", "memberIds", "ownerId", "version"])
        // The UUID part in upper case names the same group.
        #expect(try bob.getGroup("grp-" + String(groupId.dropFirst(4)).uppercased()).payload["version"] as? Int64 == 1)

        // A retitle and an addition each raise the version by one, in the reply and the events.
        let retitled = try alice.updateGroup(groupId, title: "Bouldering")
        #expect(retitled.payload["version"] as? Int64 == 2, "\(retitled)")
        #expect(try bob.expectGroupEvent("updated", groupId: groupId).payload["version"] as? Int64 == 2)
        #expect(try alice.updateGroup(groupId, add: [carol.id]).payload["version"] as? Int64 == 3)
        #expect(try bob.expectGroupEvent("updated", groupId: groupId).payload["version"] as? Int64 == 3)
        #expect(try carol.expectGroupEvent("updated", groupId: groupId).payload["version"] as? Int64 == 3)
        // An update that changes nothing keeps it.
        #expect(try alice.updateGroup(groupId, add: [carol.id]).payload["version"] as? Int64 == 3)
        _ = try bob.expectGroupEvent("updated", groupId: groupId)
        _ = try carol.expectGroupEvent("updated", groupId: groupId)
        let current = try carol.getGroup(groupId)
        #expect(current.payload["title"] as? String == "Bouldering")
        #expect(current.payload["memberIds"] as? [String] == founders + [carol.id])
        #expect(current.payload["version"] as? Int64 == 3)

        // Removed: the group is as unknown to bob as a group that never existed.
        #expect(try alice.updateGroup(groupId, remove: [bob.id]).payload["version"] as? Int64 == 4)
        _ = try bob.expectGroupEvent("updated", groupId: groupId)
        _ = try carol.expectGroupEvent("updated", groupId: groupId)
        let removed = try bob.getGroup(groupId)
        let unknown = try bob.getGroup("grp-" + UUID().uuidString.lowercased())
        #expect(removed.errorCode == "NOT_FOUND", "\(removed)")
        #expect(NSDictionary(dictionary: removed.payload).isEqual(to: unknown.payload), "\(removed) vs \(unknown)")
        try bob.expectQuiet()
    }

    @Test func groupsList_pagesTheCallersGroupsById_withTheirVersions() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let alice = try Phone.online(server), bob = try Phone.online(server), carol = try Phone.online(server)
        let titles = ["One", "Two", "Three"]
        var created: [String] = []
        for title in titles {
            created.append(try alice.createdGroup(title: title, members: [bob.id]))
            try bob.expectGroupEvent("created", groupId: created[created.count - 1])
        }
        let bobs = try bob.createdGroup(title: "Bob's", members: [carol.id])
        try carol.expectGroupEvent("created", groupId: bobs)
        #expect(try alice.updateGroup(created[1], title: "Two!").frameType == "group_updated")
        try bob.expectGroupEvent("updated", groupId: created[1])

        let first = try alice.listGroups(limit: 2)
        #expect(first.frameType == "group_list", "\(first)")
        #expect(first["requestId"] as? String == "gl")
        let firstPage = first.payload["groups"] as? [[String: Any]] ?? []
        #expect(firstPage.count == 2)
        let cursor = try #require(first.payload["nextCursor"] as? String)
        let second = try alice.listGroups(cursor: cursor, limit: 2)
        let secondPage = second.payload["groups"] as? [[String: Any]] ?? []
        #expect(secondPage.count == 1)
        #expect(second.payload["nextCursor"] == nil, "\(second)")

        let listed = (firstPage + secondPage).compactMap { $0["groupId"] as? String }
        #expect(listed == created.sorted(), "by group id, each once")
        for group in firstPage + secondPage {
            #expect(Set(group.keys) == ["groupId", "title", "ownerId", "version"], "\(group)")
            #expect(group["ownerId"] as? String == alice.id)
            let index = created.firstIndex(of: group["groupId"] as? String ?? "") ?? -1
            #expect(group["version"] as? Int64 == (index == 1 ? 2 : 1), "\(group)")
            #expect(group["title"] as? String == (index == 1 ? "Two!" : titles[max(0, index)]), "\(group)")
        }
        // The default page holds all of them; someone in no group gets an empty list.
        #expect((try bob.listGroups().payload["groups"] as? [[String: Any]])?.count == 4)
        let none = try Phone.online(server).listGroups()
        #expect((none.payload["groups"] as? [[String: Any]])?.isEmpty == true && none.payload["nextCursor"] == nil, "\(none)")
    }

    @Test func resyncFrames_refuseBadPayloads_needASession_andCountAgainstTheGroupLimit() async throws {
        let server = try await TestServer(["WHISPER_RATE_GROUP": "6/60"])
        defer { server.stop() }
        let alice = try Phone.online(server)
        func request(_ type: String, token: String? = alice.token, _ extra: [String: Any]) throws -> [String: Any] {
            try alice.ws.request(TestWebSocket.privilegedFrame(type, token: token, requestId: "r", extra: extra))
        }
        // Refused before the limit is charged.
        for (type, extra) in [("group_get", [:]), ("group_get", ["groupId": "grp-nope"]), ("group_get", ["groupId": 7]),
                              ("group_get", ["groupId": "grp-" + UUID().uuidString, "title": "x"]),
                              ("groups_list", ["limit": 0]), ("groups_list", ["limit": 201]), ("groups_list", ["limit": "5"]),
                              ("groups_list", ["cursor": "nope"]), ("groups_list", ["memberIds": []])] as [(String, [String: Any])] {
            let reply = try request(type, extra)
            #expect(reply.errorCode == "INVALID_PAYLOAD", "\(type) \(extra): \(reply)")
            #expect(reply["requestId"] as? String == "r")
        }
        #expect(try request("group_get", token: nil, ["groupId": "grp-" + UUID().uuidString]).errorCode == "NOT_REGISTERED")
        #expect(try request("groups_list", token: nil, [:]).errorCode == "NOT_REGISTERED")
        #expect(try request("groups_list", ["limit": 200, "cursor": NSNull()]).frameType == "group_list")
        // The GROUP limit is shared with create and update: that list, a create and 4 reads, then refused.
        let groupId = try alice.createdGroup(members: [])
        for _ in 0..<2 { #expect(try alice.getGroup(groupId).frameType == "group_info") }
        for _ in 0..<2 { #expect(try alice.listGroups().frameType == "group_list") }
        let limited = try alice.getGroup(groupId)
        #expect(limited.errorCode == "RATE_LIMITED", "\(limited)")
        #expect((limited.payload["retryAfterMs"] as? Int64 ?? 0) > 0)
        #expect(try alice.listGroups().errorCode == "RATE_LIMITED")
        try alice.expectQuiet()
    }
}

extension Phone {
    func getGroup(_ groupId: String) throws -> [String: Any] {
        try ws.request(TestWebSocket.privilegedFrame("group_get", token: token, requestId: "gg", extra: ["groupId": groupId]))
    }

    func listGroups(cursor: String? = nil, limit: Int? = nil) throws -> [String: Any] {
        var extra: [String: Any] = [:]
        if let cursor { extra["cursor"] = cursor }
        if let limit { extra["limit"] = limit }
        return try ws.request(TestWebSocket.privilegedFrame("groups_list", token: token, requestId: "gl", extra: extra))
    }
}
