/// How the benchmark reaches the server; shared by every scenario.
public struct ConnectionOptions: Sendable {
    public var host = "127.0.0.1"
    public var port = 8080
    public var path = "/ws"
    /// Client event loops (threads). One or two: the generator must leave the cores to the server.
    public var threads = 1
    /// Loopback source addresses 127.0.0.1 … 127.0.0.N to spread sockets over; 0 lets the
    /// kernel choose (the only choice for a non-loopback server).
    public var sourceAddresses = 8
    /// Offer permessage-deflate (phones may; off by default so the server's cost is the
    /// protocol's, not zlib's).
    public var offerDeflate = false
    public var connectTimeoutSeconds = 10.0
    /// Connects/logins in flight at once (per run, spread over the loops).
    public var connectConcurrency = 256

    public init() {}
}
