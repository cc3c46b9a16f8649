/// Limits and timers for one WebSocket connection. Durations are converted to the monotonic
/// nanoseconds the connection is driven with.
public struct WebSocketConfiguration: Sendable {
    /// Largest message accepted, after decompression; above it → close 1009 (docs/protocol.md "Transport":
    /// `MAX_WS_FRAME_BYTES`, 512,000).
    public var maxMessageBytes: Int
    /// Largest compressed message accepted on the wire; nil → derived from `maxMessageBytes`.
    public var maxCompressedMessageBytes: Int?
    /// The negotiated permessage-deflate parameters (from the handshake), nil when not in use.
    public var deflate: DeflateParameters?
    /// Ping the peer after this long without receiving anything (keepalive).
    public var pingInterval: Duration
    /// Close a socket that has been silent this long (docs/protocol.md "Transport": 90 s).
    public var idleTimeout: Duration
    /// After sending Close, wait this long for the peer's Close before dropping TCP (RFC 6455 §7.1.1).
    public var closeTimeout: Duration
    /// Deliver binary messages instead of closing with 1003. The relay protocol is text only
    /// (docs/protocol.md "Transport"); this exists for conformance harnesses such as an Autobahn echo endpoint.
    public var acceptsBinaryMessages: Bool

    public init(
        maxMessageBytes: Int = 512_000,
        maxCompressedMessageBytes: Int? = nil,
        deflate: DeflateParameters? = nil,
        pingInterval: Duration = .seconds(30),
        idleTimeout: Duration = .seconds(90),
        closeTimeout: Duration = .seconds(5),
        acceptsBinaryMessages: Bool = false
    ) {
        self.maxMessageBytes = maxMessageBytes
        self.maxCompressedMessageBytes = maxCompressedMessageBytes
        self.deflate = deflate
        self.pingInterval = pingInterval
        self.idleTimeout = idleTimeout
        self.closeTimeout = closeTimeout
        self.acceptsBinaryMessages = acceptsBinaryMessages
    }
}

extension Duration {
    /// Whole nanoseconds, clamped to 0...UInt64.max (negative durations count as zero).
    var clampedNanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        guard seconds >= 0 else { return 0 }
        let (scaled, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return .max }
        let (sum, overflow2) = scaled.addingReportingOverflow(UInt64(max(0, attoseconds / 1_000_000_000)))
        return overflow2 ? .max : sum
    }
}
