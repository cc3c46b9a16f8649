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
    /// The outbox gave up on an envelope (a permanent error, or 10 attempts).
    case failed(messageId: String, reason: String)
    /// A message whose sender's keys no longer match the pinned ones; not receipted.
    case keyChanged(WhisperID)
    /// A message whose signature does not verify with its sender's keys; dropped, not receipted.
    case rejected(messageId: String, from: WhisperID)
    /// Any other server push (`group_event`, `presence`, `typing`, `call_*`, …), in order.
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
