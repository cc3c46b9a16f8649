import Foundation
import Testing
import WhisperTesting

/// Group frames as a phone sends them (docs/protocol.md "Groups").
extension Phone {
    func createGroup(title: String = "Team", members: [String], requestId: String = "gc") throws -> [String: Any] {
        try ws.request(TestWebSocket.privilegedFrame("group_create", token: token, requestId: requestId,
                                                     extra: ["title": title, "memberIds": members]))
    }

    /// Creates a group and returns its id, expecting `group_created`.
    func createdGroup(title: String = "Team", members: [String]) throws -> String {
        let reply = try createGroup(title: title, members: members)
        #expect(reply.frameType == "group_created", "\(reply)")
        return reply.payload["groupId"] as? String ?? ""
    }

    func updateGroup(_ groupId: String, add: [String]? = nil, remove: [String]? = nil, title: String? = nil,
                     requestId: String = "gu") throws -> [String: Any] {
        var extra: [String: Any] = ["groupId": groupId]
        if let add { extra["addMembers"] = add }
        if let remove { extra["removeMembers"] = remove }
        if let title { extra["title"] = title }
        return try ws.request(TestWebSocket.privilegedFrame("group_update", token: token, requestId: requestId, extra: extra))
    }

    /// A `group_send_message` envelope for `to`, signed over the `groupId` as `toOrGroupId`
    /// (docs/protocol.md "Canonical signing"); `signAs` replaces the signed type (for a wrong signature).
    func groupMessage(_ groupId: String, to: String, from: String? = nil, messageId: String = UUID().uuidString.lowercased(),
                      timestamp: Int64 = TestMessage.nowMillis(), signAs: String = "group_send_message") -> [String: Any] {
        let message = TestMessage(from: from ?? id, to: to, messageId: messageId, timestamp: timestamp)
        var payload = message.payload(signedBy: identity.signing)
        let bytes = TestMessage.signedBytes(type: signAs, messageId: message.messageId, from: message.from, to: groupId,
                                            timestamp: message.timestamp, nonce: message.nonce, ciphertext: message.ciphertext)
        payload["sig"] = Data(identity.signing.sign(TestSHA256.hash(bytes))).base64EncodedString()
        payload["groupId"] = groupId
        return payload
    }

    /// Sends a group envelope and returns the reply, skipping any `group_event` that arrives first.
    func groupSend(_ payload: [String: Any], requestId: String = "gs") throws -> [String: Any] {
        let frame = TestWebSocket.privilegedFrame("group_send_message", token: token, requestId: requestId, extra: payload)
        try ws.sendText(String(decoding: try JSONSerialization.data(withJSONObject: frame), as: UTF8.self))
        while true {
            let reply = try ws.receiveJSON()
            if reply.frameType != "group_event" { return reply }
        }
    }

    /// The next frame, which must be a `group_event` of `event`.
    @discardableResult
    func expectGroupEvent(_ event: String, groupId: String) throws -> [String: Any] {
        let frame = try ws.receiveJSON()
        #expect(frame.frameType == "group_event", "\(frame)")
        #expect(frame["requestId"] == nil)
        #expect(frame.payload["event"] as? String == event, "\(frame)")
        #expect(frame.payload["groupId"] as? String == groupId)
        return frame
    }
}
