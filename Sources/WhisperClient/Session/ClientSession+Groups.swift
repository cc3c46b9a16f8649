import Foundation
import WhisperProtocol

extension ClientSession {
    /// `group_create`: this identity owns the new group; `members` join it.
    public func createGroup(title: String, members: [WhisperID]) throws(ClientError) -> GroupState {
        try groupRequest("group_create", reply: "group_created") { w in
            w.member("title", title)
            w.member("memberIds", strings: members.map(\.string))
        }
    }

    /// `group_update`: add or remove members (the owner), or leave (`remove: [me]`).
    public func updateGroup(_ groupId: String, add: [WhisperID] = [], remove: [WhisperID] = []) throws(ClientError) -> GroupState {
        try groupRequest("group_update", reply: "group_updated") { w in
            w.member("groupId", groupId)
            w.member("addMembers", strings: add.map(\.string))
            w.member("removeMembers", strings: remove.map(\.string))
        }
    }

    /// `group_get`: the group's current state (members included).
    public func group(_ groupId: String) throws(ClientError) -> GroupState {
        try groupRequest("group_get", reply: "group_info") { w in w.member("groupId", groupId) }
    }

    /// Every group this identity is in (`groups_list`, all pages, then `group_get` each).
    public func groups() throws(ClientError) -> [GroupState] {
        guard let token = account.sessionToken else { throw .notConnected }
        var ids: [String] = []
        var cursor: String?
        repeat {
            let page = try expect("group_list", request {
                ClientFrames.privileged("groups_list", requestId: $0, token: token) { w in
                    if let cursor { w.member("cursor", cursor) }
                    w.member("limit", Int64(200))
                }
            })
            ids += (page["groups"]?.arrayValue ?? []).compactMap { $0["groupId"]?.stringValue }
            cursor = page["nextCursor"]?.stringValue
        } while cursor != nil
        var states: [GroupState] = []
        for id in ids { states.append(try group(id)) }
        return states
    }

    /// One group message: one `messageId`, one envelope per other member, each boxed to that
    /// member and signed over the group id (contract §15), all queued in the outbox together.
    @discardableResult
    public func send(text: String, toGroup groupId: String) throws(ClientError) -> String {
        guard let me = account.whisperId else { throw .noIdentity }
        let members = try group(groupId).memberIds.filter { $0 != me }
        let messageId = UUID().uuidString.lowercased()
        let timestamp = clock()
        // Every envelope is sealed before any is queued: all members or none.
        var entries: [OutboxEntry] = []
        for member in members {
            let keys = try contactKeys(member)
            do {
                let envelope = try identity.seal(Array(text.utf8), kind: .groupMessage(groupId: groupId), id: messageId, from: me,
                                                 to: member, timestampMillis: timestamp, recipientEncPublicKey: keys.encPublicKey)
                entries.append(OutboxEntry(envelope: envelope, msgType: .text, groupId: groupId))
            } catch {
                throw .protocolViolation("cannot seal: \(error)")
            }
        }
        for entry in entries { outbox.enqueue(entry) }
        try outbox.save(in: home)
        try flushOutbox()
        return messageId
    }

    private func groupRequest(_ type: String, reply: String,
                              _ members: (inout JSONWriter) -> Void) throws(ClientError) -> GroupState {
        guard let token = account.sessionToken else { throw .notConnected }
        let payload = try expect(reply, request { ClientFrames.privileged(type, requestId: $0, token: token, members) })
        try applyPushes()
        guard let state = GroupState(payload: payload) else { throw .protocolViolation("\(reply) without a group state") }
        return state
    }
}
