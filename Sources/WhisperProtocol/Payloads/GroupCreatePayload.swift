/// `group_create` (docs/protocol.md "Groups"), client → server, privileged:
///
///     {"protocolVersion":1,"cryptoVersion":1,"sessionToken":"…","title":"…","memberIds":["WSP-…",…]}
///
/// Shape and sizes only (`INVALID_PAYLOAD`): a title of 1…`maxGroupTitleBytes` UTF-8 bytes and at
/// most `maxGroupMembers` distinct ids (repeats are folded). Whether the members exist and
/// whether the group with its creator stays within the cap are the group service's checks.
public struct GroupCreatePayload: Sendable, Equatable {
    public static let type = "group_create"
    public static let allowedKeys: Set<String> = PrivilegedPayload.commonKeys.union(["title", "memberIds"])

    public let title: String
    /// Distinct, in the order first written; may include the creator.
    public let memberIds: [WhisperID]

    public init(parsing payload: JSONObject, limits: Limits) throws(PayloadError) {
        try payload.rejectUnknownKeys(allowed: Self.allowedKeys)
        title = try GroupTitle.require("title", in: payload, limits: limits)
        memberIds = try payload.whisperIDList("memberIds", max: limits.maxGroupMembers)
    }
}

/// The `title` rule shared by `group_create` and `group_update`.
enum GroupTitle {
    static func require(_ key: String, in payload: JSONObject, limits: Limits) throws(PayloadError) -> String {
        let title = try payload.requireString(key)
        guard !title.isEmpty else { throw .invalidValue(field: key) }
        guard title.utf8.count <= limits.maxGroupTitleBytes else { throw .tooLarge(field: key, maxBytes: limits.maxGroupTitleBytes) }
        return title
    }
}

extension JSONObject {
    /// An array of Whisper IDs with repeats folded (first spelling kept, order kept), at most
    /// `max` entries before folding, so the work a frame can cause is bounded by the cap.
    /// Absent or `null` is an empty list when `required` is false.
    func whisperIDList(_ key: String, max: Int, required: Bool = true) throws(PayloadError) -> [WhisperID] {
        let items: [JSONValue]
        switch self[key] {
        case nil, .null?:
            guard !required else { throw .missingField(key) }
            return []
        case let .array(values)?:
            items = values
        case .some:
            throw .wrongType(field: key, expected: .array)
        }
        guard items.count <= max else { throw .tooManyItems(field: key, max: max) }
        var seen = Set<WhisperID>()
        var ids: [WhisperID] = []
        ids.reserveCapacity(items.count)
        for item in items {
            guard case let .string(text) = item, let id = WhisperID.validate(text) else { throw .invalidWhisperID(field: key) }
            if seen.insert(id).inserted { ids.append(id) }
        }
        return ids
    }
}
