/// The body of `POST /admin/reports/{id}/review` (docs/protocol.md "Admin API"):
///
///     {"action":"dismiss"|"ban","note":"…"?}
public struct AdminReviewPayload: Sendable, Equatable {
    /// What the moderator decided; `ban` also bans the reported identity, permanently.
    public enum Action: String, Sendable, CaseIterable {
        case dismiss, ban
    }

    public static let allowedKeys: Set<String> = ["action", "note"]
    public static func maxBodyBytes(limits: Limits) -> Int { limits.maxAdminNoteBytes * 6 + 256 }

    public let action: Action
    /// The moderator's note, at most `Limits.maxAdminNoteBytes` UTF-8 bytes.
    public let note: String?

    public init(action: Action, note: String?) {
        self.action = action
        self.note = note
    }

    public init(body: [UInt8], limits: Limits) throws(PayloadError) {
        let payload = try JSONObject(httpBody: body, maxBytes: Self.maxBodyBytes(limits: limits))
        try payload.rejectUnknownKeys(allowed: Self.allowedKeys)
        guard let action = Action(rawValue: try payload.requireString("action")) else { throw .invalidValue(field: "action") }
        self.action = action
        note = try payload.optionalString("note")
        if let note, note.utf8.count > limits.maxAdminNoteBytes {
            throw .tooLarge(field: "note", maxBytes: limits.maxAdminNoteBytes)
        }
        // NUL cannot travel as a libpq text parameter.
        if let note, note.utf8.contains(0) { throw .invalidValue(field: "note") }
    }
}
