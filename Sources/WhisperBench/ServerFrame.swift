import WhisperProtocol

/// A server frame as the benchmark reads it: the envelope of docs/protocol.md, parsed with
/// the protocol module's strict parser.
struct ServerFrame {
    let type: String
    let requestId: String?
    let payload: JSONObject

    /// nil when the text is not a JSON object with a string `type` (counted as a bad frame).
    init?(parsing text: [UInt8]) {
        guard let object = try? JSONParser.parseObject(text, limits: JSONLimits(maxInputBytes: Int.max)),
              let type = object["type"]?.stringValue else { return nil }
        self.type = type
        requestId = object["requestId"]?.stringValue
        payload = object["payload"]?.objectValue ?? JSONObject()
    }

    private init(type: String) {
        self.type = type
        requestId = nil
        payload = JSONObject()
    }

    /// Stands for a text message that did not parse, so owners can count it.
    static let unreadableType = "bench.unreadable"
    static var unreadable: ServerFrame { ServerFrame(type: unreadableType) }

    func string(_ key: String) -> String? { payload[key]?.stringValue }

    /// `payload.code` of an `error` frame.
    var errorCode: String? { type == "error" ? string("code") ?? "UNKNOWN" : nil }

    /// The message this frame is about, when its `messageId` is one of ours.
    var messageID: MessageID? { string("messageId").flatMap(MessageID.init(text:)) }
}
