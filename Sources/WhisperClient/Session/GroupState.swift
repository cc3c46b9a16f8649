import WhisperProtocol

/// A group as the server describes it in `group_created`, `group_updated`, `group_info` and
/// `group_event` (docs/protocol.md "Groups"): the whole state, replaced rather than merged.
public struct GroupState: Equatable, Sendable {
    public let groupId: String
    public let title: String
    public let memberIds: [WhisperID]
    public let ownerId: WhisperID?
    public let version: Int64

    init?(payload: JSONValue) {
        guard let groupId = payload["groupId"]?.stringValue, let version = payload["version"]?.int64Value else { return nil }
        self.groupId = groupId
        self.version = version
        title = payload["title"]?.stringValue ?? ""
        memberIds = (payload["memberIds"]?.arrayValue ?? []).compactMap { $0.stringValue.flatMap(WhisperID.validate) }
        ownerId = payload["ownerId"]?.stringValue.flatMap(WhisperID.validate)
    }
}
