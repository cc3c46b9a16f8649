/// `groups_list` (docs/protocol.md "Groups"), client → server, privileged:
///
///     {"protocolVersion":1,"cryptoVersion":1,"sessionToken":"…","cursor":"<opaque>"|null?,"limit":1…200|null?}
///
/// `cursor` is the `nextCursor` of the previous `group_list` page (absent or `null`: the first
/// page); `limit` defaults to `Limits.groupsListDefaultLimit` (100) and may be at most
/// `Limits.groupsListMaxLimit` (200).
public struct GroupsListPayload: Sendable, Equatable {
    public static let type = "groups_list"
    public static let cursorKey = "cursor"
    public static let limitKey = "limit"
    public static let allowedKeys: Set<String> = PrivilegedPayload.commonKeys.union([cursorKey, limitKey])

    /// The page starts after this group (groups are listed by id); `nil` for the first page.
    public let after: GroupID?
    /// Page size, 1…`Limits.groupsListMaxLimit`.
    public let limit: Int

    public init(parsing payload: JSONObject, limits: Limits) throws(PayloadError) {
        try payload.rejectUnknownKeys(allowed: Self.allowedKeys)
        if let text = try payload.optionalString(Self.cursorKey) {
            guard let after = GroupID(text) else { throw .invalidValue(field: Self.cursorKey) }
            self.after = after
        } else {
            after = nil
        }
        limit = try payload.pageLimit(Self.limitKey, default: limits.groupsListDefaultLimit, max: limits.groupsListMaxLimit)
    }
}
