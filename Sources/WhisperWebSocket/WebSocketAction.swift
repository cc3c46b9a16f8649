/// What the I/O driver must do after feeding the connection, in order.
public enum WebSocketAction: Equatable, Sendable {
    /// A complete, UTF-8-valid text message for the application.
    case deliverText([UInt8])
    /// A complete binary message (only with `acceptsBinaryMessages`).
    case deliverBinary([UInt8])
    /// Encoded frames to write to the socket (pongs, pings, close frames).
    case send([UInt8])
    /// Close the TCP connection; `afterFlush` asks to write pending output first (our Close
    /// frame must reach the peer, RFC 6455 §7.1.1), false drops it at once.
    case close(afterFlush: Bool)
}
