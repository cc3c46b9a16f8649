/// The permessage-deflate parameters in force on one connection (RFC 7692 §7.1), plus the local
/// zlib tuning that is not negotiated.
public struct DeflateParameters: Equatable, Sendable {
    /// We reset our compressor after every message (server_no_context_takeover, RFC 7692 §7.1.1.1).
    public var serverNoContextTakeover: Bool
    /// The client resets its compressor after every message, so we reset our decompressor too
    /// (client_no_context_takeover, RFC 7692 §7.1.1.2).
    public var clientNoContextTakeover: Bool
    /// The largest LZ77 window our compressor may use, 8–15 (server_max_window_bits, §7.1.2.1).
    public var serverMaxWindowBits: Int
    /// The largest window the client may use, 8–15 (client_max_window_bits, §7.1.2.2); 15 when
    /// not negotiated. Informational: we always inflate with a 32 KiB window, which reads any.
    public var clientMaxWindowBits: Int
    /// zlib compression level, 0–9 (1 fastest, 9 smallest; 6 is zlib's default).
    public var compressionLevel: Int32
    /// zlib memLevel, 1–9: deflate state is about 2^(windowBits+2) + 2^(memLevel+9) octets.
    public var memoryLevel: Int32

    public init(
        serverNoContextTakeover: Bool = false,
        clientNoContextTakeover: Bool = false,
        serverMaxWindowBits: Int = 15,
        clientMaxWindowBits: Int = 15,
        compressionLevel: Int32 = 6,
        memoryLevel: Int32 = 8
    ) {
        self.serverNoContextTakeover = serverNoContextTakeover
        self.clientNoContextTakeover = clientNoContextTakeover
        self.serverMaxWindowBits = serverMaxWindowBits
        self.clientMaxWindowBits = clientMaxWindowBits
        self.compressionLevel = compressionLevel
        self.memoryLevel = memoryLevel
    }

    /// The raw-deflate windowBits handed to zlib (negative = no zlib header, RFC 7692 §7.2.1).
    ///
    /// zlib refuses a raw window of 8 (since 1.2.9), so 8 is deflated with 9. That still keeps the
    /// promise of a 256-octet window: zlib never emits a distance above `MAX_DIST = w_size -
    /// MIN_LOOKAHEAD = 512 - 262 = 250` for a 512-octet window, so every back-reference reaches at
    /// most 250 octets back and a peer inflating with a 256-octet window decodes it.
    var compressorWindowBits: Int32 {
        -Int32(min(15, max(9, serverMaxWindowBits)))
    }
}
