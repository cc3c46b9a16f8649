/// The query of an admin list route (docs/protocol.md "Admin API"): `?cursor=&limit=` and,
/// for `GET /admin/reports`, `status=open|reviewed`.
///
/// A cursor is opaque to callers: they pass back the `nextCursor` of the previous page. Inside
/// it is the last item's key — a decimal row id (reports, audit events) or a Whisper ID
/// (bans) — and it is validated as such, so a forged one is `INVALID_PAYLOAD` naming
/// `cursor`, never a database error.
public struct AdminPageQuery: Sendable, Equatable {
    public let cursor: String?
    /// 1…`Limits.adminPageMaxLimit`; `Limits.adminPageDefaultLimit` when absent.
    public let limit: Int
    public let status: String?

    /// `items` are the decoded query parameters in order; any name but `allowed` (a subset of
    /// `cursor`, `limit`, `status`) is refused, as is a repeated one.
    public init(items: [(name: String, value: String)], allowed: Set<String>, limits: Limits) throws(PayloadError) {
        var seen: [String: String] = [:]
        for item in items {
            guard allowed.contains(item.name) else { throw .unknownField(item.name) }
            guard seen.updateValue(item.value, forKey: item.name) == nil else { throw .invalidValue(field: item.name) }
        }
        cursor = try seen["cursor"].map { text throws(PayloadError) in
            guard !text.isEmpty, text.utf8.count <= 64 else { throw .invalidValue(field: "cursor") }
            return text
        }
        if let text = seen["limit"] {
            guard text.utf8.count <= 4, text.utf8.allSatisfy(ASCII.isDigit), let value = Int(text),
                  (1...limits.adminPageMaxLimit).contains(value)
            else { throw .outOfRange(field: "limit") }
            limit = value
        } else {
            limit = limits.adminPageDefaultLimit
        }
        status = seen["status"]
    }

    /// The cursor as a row id (reports, audit events), see `rowId`.
    public func idCursor() throws(PayloadError) -> Int64? {
        guard let cursor else { return nil }
        guard let id = Self.rowId(cursor) else { throw .invalidValue(field: "cursor") }
        return id
    }

    /// A row id as the admin API spells it (a report id in a path, a cursor): 1…18 decimal
    /// digits, no sign, so it always fits `Int64`; nil otherwise.
    public static func rowId(_ text: String) -> Int64? {
        guard !text.isEmpty, text.utf8.count <= 18, text.utf8.allSatisfy(ASCII.isDigit) else { return nil }
        return Int64(text)
    }

    /// The cursor as a Whisper ID (bans).
    public func whisperIdCursor() throws(PayloadError) -> WhisperID? {
        guard let cursor else { return nil }
        guard let id = WhisperID.validate(cursor) else { throw .invalidValue(field: "cursor") }
        return id
    }
}
