import WhisperProtocol

/// The small frames around messages: typing, read receipts, push tokens (docs/protocol.md
/// "Typing", "delivery_receipt", "update_tokens"), and what arrives unasked: presence, typing.
extension ClientSession {
    /// How many unanswered frames are remembered for matching a late refusal.
    static let unansweredKept = 64

    /// `typing {to, isTyping}`. The server relays at most one per 2 s per pair, only to a direct
    /// peer that is online, and answers nothing on success; a refusal arrives later as
    /// `ClientEvent.refused(frame: "typing", …)`.
    public func setTyping(_ isTyping: Bool, to peer: WhisperID) throws(ClientError) {
        guard let token = account.sessionToken else { throw .notConnected }
        try sendUnanswered("typing") {
            ClientFrames.privileged("typing", requestId: $0, token: token) { w in
                w.member("to", peer.string)
                w.member("isTyping", isTyping)
            }
        }
    }

    /// `delivery_receipt {status:"read"}` for a message the user has seen: its sender gets
    /// `message_delivered {status:"read"}` (`ClientEvent.read`, outbox state `read`).
    public func markRead(_ message: ReceivedMessage) throws(ClientError) {
        try sendReceipt(messageId: message.messageId, to: message.from, status: .read)
    }

    /// `update_tokens`: where push wake-ups (`pushToken`, APNs or FCM) and call pushes
    /// (`voipToken`, iOS PushKit) reach this device. A nil token keeps the stored one.
    public func registerPushTokens(pushToken: String?, voipToken: String? = nil) throws(ClientError) {
        guard let token = account.sessionToken else { throw .notConnected }
        _ = try expect("tokens_updated", request {
            ClientFrames.privileged("update_tokens", requestId: $0, token: token) { w in
                if let pushToken { w.member("pushToken", pushToken) }
                if let voipToken { w.member("voipToken", voipToken) }
                w.member("platform", Self.platform)
            }
        })
    }

    /// Sends a frame that only a refusal answers, remembering its request id for `lateReply`.
    func sendUnanswered(_ type: String, _ build: (String) -> [UInt8]) throws(ClientError) {
        let id = try send(build)
        unanswered.append((id, type))
        if unanswered.count > Self.unansweredKept { unanswered.removeFirst(unanswered.count - Self.unansweredKept) }
    }

    /// A reply that nobody waits for: the refusal of an unanswered frame becomes `.refused`;
    /// anything else (the late reply of a request that timed out) is dropped.
    func lateReply(to requestId: String, type: String, payload: JSONValue) {
        guard type == "error", let index = unanswered.firstIndex(where: { $0.requestId == requestId }) else { return }
        let frame = unanswered.remove(at: index).type
        onEvent(.refused(frame: frame, error: .server(code: payload["code"]?.stringValue ?? "INTERNAL_ERROR",
                                                      message: payload["message"]?.stringValue ?? "",
                                                      retryAfterMillis: payload["retryAfterMs"]?.int64Value)))
    }

    /// `typing {from, isTyping}` or `presence {whisperId, status, timestamp}`; nil if malformed.
    func peerSignal(_ type: String, _ payload: JSONValue) -> ClientEvent? {
        if type == "typing" {
            guard let from = payload["from"]?.stringValue.flatMap(WhisperID.validate),
                  let isTyping = payload["isTyping"]?.boolValue else { return nil }
            return .typing(from: from, isTyping: isTyping)
        }
        guard let id = payload["whisperId"]?.stringValue.flatMap(WhisperID.validate),
              let status = payload["status"]?.stringValue, status == "online" || status == "offline",
              let at = payload["timestamp"]?.int64Value else { return nil }
        return .presence(id, online: status == "online", at: at)
    }
}
