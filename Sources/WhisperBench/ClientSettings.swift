import WhisperRuntime

/// Where and how every client connects; the same for all connections of a run.
struct ClientSettings: Sendable {
    var remote: SocketAddress
    /// The `Host` header (the server does not route on it, but HTTP/1.1 requires one).
    var hostHeader: String
    var path: String
    var offerDeflate: Bool
    var connectTimeoutNanoseconds: UInt64
    /// How long our Close may wait for the server's before the socket is dropped.
    var closeTimeoutNanoseconds: UInt64 = 2_000_000_000
    /// A `pending_messages` page of 200 text messages is ~150 KB; this is a guard, not a limit
    /// we expect to meet.
    var maxMessageBytes = 16 << 20
}
