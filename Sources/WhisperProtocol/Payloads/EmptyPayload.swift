/// The body of a POST that takes none (docs/protocol.md "Admin API"): no body, or the empty
/// JSON object `{}` that many HTTP clients send with every POST. Anything else is
/// `INVALID_PAYLOAD`.
public struct EmptyPayload: Sendable, Equatable {
    /// Room for `{}` with some whitespace around it; more is 413.
    public static let maxBodyBytes = 64

    public init(body: [UInt8]) throws(PayloadError) {
        guard !body.isEmpty else { return }
        let payload = try JSONObject(httpBody: body, maxBytes: Self.maxBodyBytes)
        try payload.rejectUnknownKeys(allowed: [])
    }
}
