/// Every input limit of the HTTP/1.1 parser, in one place. Each has a defined status when exceeded.
public struct HTTPLimits: Sendable, Equatable {
    /// Bytes of the request head: request-line, every field line and the empty line that ends the
    /// head, CRLFs included. `maxHeaderBytes` passes; one more → 431 (RFC 6585 §5).
    public var maxHeaderBytes: Int
    /// Field lines in one head. `maxHeaderCount` passes; one more → 431.
    public var maxHeaderCount: Int
    /// Body cap used when a route does not choose its own (see `HTTPRequestParser.next(bodyLimit:)`).
    /// Content-Length above the cap → 413 (RFC 9110 §15.5.14), before any body byte is buffered.
    public var defaultMaxBodyBytes: Int

    public init(maxHeaderBytes: Int = 16 * 1024, maxHeaderCount: Int = 100, defaultMaxBodyBytes: Int = 1024 * 1024) {
        self.maxHeaderBytes = maxHeaderBytes
        self.maxHeaderCount = maxHeaderCount
        self.defaultMaxBodyBytes = defaultMaxBodyBytes
    }

    public static let `default` = HTTPLimits()
}
