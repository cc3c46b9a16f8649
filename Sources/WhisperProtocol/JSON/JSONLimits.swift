/// Resource limits for one parse. Every limit is checked as soon as the size is known; all sizes are
/// also bounded by the input size (a string cannot be longer than the input), so `maxInputBytes` is
/// the memory bound and the others narrow it.
public struct JSONLimits: Sendable, Equatable {
    /// Whole input, in bytes. Default: `MAX_WS_FRAME_BYTES` (docs/protocol.md "Limits").
    public var maxInputBytes: Int
    /// Containers nested inside each other; the top-level container is depth 1. The parser recurses
    /// once per level, so keep this modest (the stack is the bound).
    public var maxDepth: Int
    /// Decoded UTF-8 bytes of one string (key or value).
    public var maxStringBytes: Int
    /// Elements of one array.
    public var maxArrayElements: Int
    /// Members of one object.
    public var maxObjectMembers: Int
    /// Characters of one number literal (a `Double` needs at most ~25).
    public var maxNumberBytes: Int

    public init(
        maxInputBytes: Int = 512_000,
        maxDepth: Int = 32,
        maxStringBytes: Int = 512_000,
        maxArrayElements: Int = 10_000,
        maxObjectMembers: Int = 1_000,
        maxNumberBytes: Int = 128
    ) {
        self.maxInputBytes = maxInputBytes
        self.maxDepth = maxDepth
        self.maxStringBytes = maxStringBytes
        self.maxArrayElements = maxArrayElements
        self.maxObjectMembers = maxObjectMembers
        self.maxNumberBytes = maxNumberBytes
    }

    /// Defaults sized for one WebSocket frame.
    public static let frame = JSONLimits()
}
