/// What the server is willing to agree to when a client offers permessage-deflate (RFC 7692 §7.1).
///
/// The defaults accept the client's offer as made. Lowering `serverMaxWindowBits` or setting
/// `serverNoContextTakeover` trades compression ratio for per-connection memory: a context-keeping
/// compressor holds ~2^(bits+2) + 2^(memoryLevel+9) octets of zlib state between messages.
public struct PerMessageDeflatePolicy: Equatable, Sendable {
    /// Our compressor's window, 8–15; the response asks for the smaller of this and the offer.
    public var serverMaxWindowBits: Int
    /// Always reset our compressor between messages, even if the client did not ask.
    public var serverNoContextTakeover: Bool
    /// When below 15 and the client offered `client_max_window_bits`, ask it to use at most this.
    public var clientMaxWindowBits: Int
    /// Ask the client to reset its compressor between messages.
    public var clientNoContextTakeover: Bool
    public var compressionLevel: Int32
    public var memoryLevel: Int32

    public init(
        serverMaxWindowBits: Int = 15,
        serverNoContextTakeover: Bool = false,
        clientMaxWindowBits: Int = 15,
        clientNoContextTakeover: Bool = false,
        compressionLevel: Int32 = 6,
        memoryLevel: Int32 = 8
    ) {
        self.serverMaxWindowBits = min(15, max(8, serverMaxWindowBits))
        self.serverNoContextTakeover = serverNoContextTakeover
        self.clientMaxWindowBits = min(15, max(8, clientMaxWindowBits))
        self.clientNoContextTakeover = clientNoContextTakeover
        self.compressionLevel = min(9, max(0, compressionLevel))
        self.memoryLevel = min(9, max(1, memoryLevel))
    }
}
