/// `fetch_pending` (docs/protocol.md "Messaging (1:1)"), client → server, privileged:
///
///     {"protocolVersion":1,"cryptoVersion":1,"sessionToken":"…","cursor":"<opaque>"|null?,"limit":1…200|null?}
///
/// `cursor` is the `nextCursor` of the previous `pending_messages` page (absent or `null`: start at
/// the oldest pending message); `limit` defaults to `Limits.fetchPendingDefaultLimit` (50) and may
/// be at most `Limits.fetchPendingMaxLimit` (200).
public struct FetchPendingPayload: Sendable, Equatable {
    public static let type = "fetch_pending"
    public static let cursorKey = "cursor"
    public static let limitKey = "limit"
    public static let allowedKeys: Set<String> = PrivilegedPayload.commonKeys.union([cursorKey, limitKey])

    /// Where the page starts (exclusive); `nil` for the oldest pending message.
    public let cursor: PendingCursor?
    /// Page size, 1…`Limits.fetchPendingMaxLimit`.
    public let limit: Int

    public init(cursor: PendingCursor?, limit: Int) {
        self.cursor = cursor
        self.limit = limit
    }

    public init(parsing payload: JSONObject, limits: Limits) throws(PayloadError) {
        try payload.rejectUnknownKeys(allowed: Self.allowedKeys)
        if let text = try payload.optionalString(Self.cursorKey) {
            guard let cursor = PendingCursor(text) else { throw .invalidValue(field: Self.cursorKey) }
            self.cursor = cursor
        } else {
            cursor = nil
        }
        limit = try payload.pageLimit(Self.limitKey, default: limits.fetchPendingDefaultLimit, max: limits.fetchPendingMaxLimit)
    }
}
