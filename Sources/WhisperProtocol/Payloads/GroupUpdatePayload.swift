/// `group_update` (docs/protocol.md "Groups"), client → server, privileged:
///
///     {"protocolVersion":1,"cryptoVersion":1,"sessionToken":"…","groupId":"grp-<uuid>",
///      "addMembers":["WSP-…",…]?,"removeMembers":["WSP-…",…]?,"title":"…"?}
///
/// Absent lists are empty. Shape and sizes only (`INVALID_PAYLOAD`): each list at most
/// `maxGroupMembers` ids, no id in both lists, and at least one change asked for. Who may
/// change what is the group service's check.
public struct GroupUpdatePayload: Sendable, Equatable {
    public static let type = "group_update"
    public static let allowedKeys: Set<String> = PrivilegedPayload.commonKeys
        .union(["groupId", "addMembers", "removeMembers", "title"])

    public let groupId: GroupID
    public let addMembers: [WhisperID]
    public let removeMembers: [WhisperID]
    public let title: String?

    public init(groupId: GroupID, addMembers: [WhisperID], removeMembers: [WhisperID], title: String?) {
        self.groupId = groupId
        self.addMembers = addMembers
        self.removeMembers = removeMembers
        self.title = title
    }

    public init(parsing payload: JSONObject, limits: Limits) throws(PayloadError) {
        try payload.rejectUnknownKeys(allowed: Self.allowedKeys)
        groupId = try payload.requireGroupID("groupId")
        addMembers = try payload.whisperIDList("addMembers", max: limits.maxGroupMembers, required: false)
        removeMembers = try payload.whisperIDList("removeMembers", max: limits.maxGroupMembers, required: false)
        switch payload["title"] {
        case nil, .null?: title = nil
        case .some: title = try GroupTitle.require("title", in: payload, limits: limits)
        }
        guard Set(addMembers).isDisjoint(with: removeMembers) else { throw .invalidValue(field: "removeMembers") }
        guard title != nil || !addMembers.isEmpty || !removeMembers.isEmpty else { throw .missingField("addMembers") }
    }
}
