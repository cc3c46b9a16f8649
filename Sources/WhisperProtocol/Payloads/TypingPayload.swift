/// `typing` (docs/protocol.md "Typing"), client → server, privileged:
///
///     {"protocolVersion":1,"cryptoVersion":1,"sessionToken":"…","to":"WSP-…","isTyping":true}
///
/// and, forwarded to `to` when it is an online direct peer, server → client:
///
///     {"type":"typing","payload":{"from":"WSP-…","isTyping":true}}
public struct TypingPayload: Sendable, Equatable {
    public static let type = "typing"
    public static let allowedKeys: Set<String> = PrivilegedPayload.commonKeys.union(["to", "isTyping"])

    public let to: WhisperID
    public let isTyping: Bool

    public init(to: WhisperID, isTyping: Bool) {
        self.to = to
        self.isTyping = isTyping
    }

    public init(parsing payload: some JSONFieldSource) throws(PayloadError) {
        try payload.rejectUnknownKeys(allowed: Self.allowedKeys)
        to = try payload.requireWhisperID("to")
        isTyping = try payload.requireBool("isTyping")
    }

    /// The frame `to` receives: who is typing, never a `requestId`.
    public func forwardedFrame(from: WhisperID) -> [UInt8] {
        OutboundFrame.encode(type: Self.type, requestId: nil) { writer in
            writer.member("from", from.string)
            writer.member("isTyping", isTyping)
        }
    }
}
