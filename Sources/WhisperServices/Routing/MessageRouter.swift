import WhisperProtocol

/// Where the store sent something addressed to a user, in the same atomic step that stored it.
public enum Routing: Sendable, Equatable {
    /// The user's socket is on this node: the caller writes the frame (`MessageRouter`).
    case local(LiveRoute)
    /// Published to the node holding the user's socket.
    case remote
    /// Nobody holds a socket for the user.
    case offline
}

/// Writes frames to sockets of this node (the server's `ConnectionRegistry` behind it).
public protocol MessageRouter {
    /// Writes `frame` to `user`'s socket at `route` (possibly on another loop of this node).
    /// A message left undelivered stays pending; an `event` left undelivered is kept with
    /// `MessageStore.keepEvent`; a `signal` is dropped. Handed over (`consuming`), the frame's
    /// bytes can become the WebSocket frame in place.
    func deliver(_ frame: consuming [UInt8], to user: WhisperID, at route: LiveRoute, kind: DeliveryKind,
                 receivedAtMicros: Int64)
}

/// What a routed frame is, which decides what happens when its socket is gone.
public enum DeliveryKind: String, Sendable {
    /// `message_received`: it stays in the pending queue anyway.
    case message = "m"
    /// `message_delivered` and other events: kept in the user's event queue.
    case event = "e"
    /// `typing` and other ephemeral signals: worthless later, so dropped when the socket is gone.
    case signal = "s"
}
