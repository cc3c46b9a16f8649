/// Why a connection from a trusted balancer was closed before its PROXY v2 header completed.
/// Never shown to the peer (nothing is sent); counted in `whisper_connections_refused_total`
/// under `metricReason`.
public enum ProxyHeaderError: Error, Sendable, Equatable {
    /// The first 12 bytes are not the v2 signature (a v1 text header, or a client that skipped the balancer).
    case badSignature
    /// The high nibble of byte 13 is not 2.
    case unsupportedVersion
    /// The low nibble of byte 13 is neither LOCAL (0) nor PROXY (1).
    case unsupportedCommand
    /// A PROXY command over something other than TCP over IPv4/IPv6 or UNSPEC (UDP, UNIX sockets).
    case unsupportedAddressFamily
    /// The declared length cannot hold the addresses of the declared family.
    case addressBlockTooShort
    /// A TLV runs past the end of the header.
    case badTLV
    /// The header would be longer than `Limits.maxProxyHeaderBytes`.
    case tooLong
    /// The peer closed (or reset) the connection before the header ended. Raised by `Connection`.
    case truncated
    /// The header did not arrive within the HTTP request timeout (slowloris). Raised by the server's HTTP driver.
    case timeout

    /// The `reason` label: a closed set, registered at start-up.
    public var metricReason: String {
        switch self {
        case .badSignature, .unsupportedVersion, .unsupportedCommand, .unsupportedAddressFamily,
             .addressBlockTooShort, .badTLV:
            return "proxy_header_invalid"
        case .tooLong: return "proxy_header_too_long"
        case .truncated: return "proxy_header_truncated"
        case .timeout: return "proxy_header_timeout"
        }
    }

    /// Every `metricReason`.
    public static let metricReasons = ["proxy_header_invalid", "proxy_header_too_long", "proxy_header_truncated",
                                       "proxy_header_timeout"]
}
