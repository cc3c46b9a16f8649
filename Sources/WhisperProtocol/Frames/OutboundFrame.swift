/// Encodes server frames: `{"type":"…","requestId":"…","payload":{…}}`, `requestId` omitted when nil.
public enum OutboundFrame {
    /// Spare capacity every encoded frame leaves at its end, so the WebSocket layer can put the
    /// frame header (at most 10 bytes, `WebSocketFrameEncoder.maxHeaderLength`) in front of
    /// the bytes in place instead of copying them into a second array.
    public static let headerRoom = 10

    /// `payload` writes the payload's members; the payload object itself is opened and closed here.
    ///
    ///     OutboundFrame.encode(type: "pong", requestId: id) { $0.member("serverTime", now) }
    public static func encode<E: Error>(
        type: String, requestId: String?, capacity: Int = 256,
        payload: (inout JSONWriter) throws(E) -> Void
    ) throws(E) -> [UInt8] {
        var writer = JSONWriter(capacity: capacity + headerRoom)
        writer.beginObject()
        writer.member("type", type)
        if let requestId { writer.member("requestId", requestId) }
        writer.key("payload")
        writer.beginObject()
        try payload(&writer)
        writer.endObject()
        writer.endObject()
        return writer.bytes
    }

    /// The standard error frame. `requestId` goes at top level (docs/protocol.md "Frames") and inside the payload
    /// (docs/protocol.md "Frames"); `retryAfterMs` accompanies `RATE_LIMITED`.
    ///
    ///     {"type":"error","requestId":"r1","payload":{"code":"RATE_LIMITED","message":"…","requestId":"r1","retryAfterMs":1500}}
    public static func errorFrame(
        code: ErrorCode, message: String, requestId: String?, retryAfterMs: Int64? = nil
    ) -> [UInt8] {
        encode(type: "error", requestId: requestId) { writer in
            writer.member("code", code.rawValue)
            writer.member("message", message)
            if let requestId { writer.member("requestId", requestId) }
            if let retryAfterMs { writer.member("retryAfterMs", retryAfterMs) }
        }
    }
}
