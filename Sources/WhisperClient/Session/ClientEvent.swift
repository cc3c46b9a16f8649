import WhisperProtocol

/// What a `ClientSession` tells the app, in the order things happened on the socket.
public enum ClientEvent: Sendable {
    case connected(WhisperID)
    /// A verified, decrypted message, stored before this event and receipted after it.
    case message(ReceivedMessage)
    /// `message_accepted`: the server holds the envelope (`sent`).
    case sent(messageId: String)
    /// `message_delivered`: `by` stored it (for a group message, one member).
    case delivered(messageId: String, by: WhisperID)
    /// `message_delivered` with status `read`: `by`'s user read it (`markRead`).
    case read(messageId: String, by: WhisperID)
    /// The outbox gave up on an envelope (a permanent error, or 10 attempts).
    case failed(messageId: String, reason: String)
    /// A message whose sender's keys no longer match the pinned ones; not receipted.
    case keyChanged(WhisperID)
    /// A message whose signature does not verify with its sender's keys; dropped, not receipted.
    case rejected(messageId: String, from: WhisperID)
    /// `typing` from a direct peer (never queued: only while both are online).
    case typing(from: WhisperID, isTyping: Bool)
    /// `presence`: a direct peer came online or went offline; `at` is the server's Unix ms.
    case presence(WhisperID, online: Bool, at: Int64)
    /// A call signal from the peer, its signature verified and its blob decrypted. An offer
    /// has been confirmed to the server (`call_received`) before this event; a repeated offer
    /// (after a reconnect while it rings) is confirmed again but not reported twice.
    case call(CallSignal)
    /// `call_ringing`: the callee's app has the offer of `callId`.
    case callRinging(callId: String)
    /// The server ended `callId` itself (`call_end` with a `reason`, today `timeout`: nobody answered).
    case callEnded(callId: String, reason: String)
    /// A frame that has no success reply (`typing`, a call signal) was refused: its type and the error.
    case refused(frame: String, error: ClientError)
    /// Any other server push (`group_event`, …), in order.
    case notification(type: String, payload: JSONValue)
    case disconnected(ClientError)
}

/// A message as the app stores it.
public struct ReceivedMessage: Equatable, Sendable {
    public let messageId: String
    public let from: WhisperID
    public let to: WhisperID
    public let groupId: String?
    public let msgType: MessageKind
    public let timestamp: Int64
    public let plaintext: [UInt8]
    /// The `attachment` pointer as sent, if any.
    public let attachment: JSONValue?

    public var text: String { String(decoding: plaintext, as: UTF8.self) }
}
