/// `group_get` (docs/protocol.md "Groups"), client → server, privileged:
///
///     {"protocolVersion":1,"cryptoVersion":1,"sessionToken":"…","groupId":"grp-<uuid>"}
///
/// Shape only (`INVALID_PAYLOAD`); whether the caller may see the group is the group service's.
public struct GroupGetPayload: Sendable, Equatable {
    public static let type = "group_get"
    public static let allowedKeys: Set<String> = PrivilegedPayload.commonKeys.union(["groupId"])

    public let groupId: GroupID

    public init(parsing payload: JSONObject) throws(PayloadError) {
        try payload.rejectUnknownKeys(allowed: Self.allowedKeys)
        groupId = try payload.requireGroupID("groupId")
    }
}
