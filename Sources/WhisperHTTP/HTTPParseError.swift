/// Every way a request can be refused by the parser. The mapping to a status is total, and every
/// case closes the connection: after a framing error the byte stream can no longer be trusted to
/// be at a message boundary (RFC 9112 §11.2).
public enum HTTPParseError: Error, Sendable, Equatable {
    /// A line ended in LF without CR, or a CR was not followed by LF. We never accept bare LF
    /// (RFC 9112 §2.2 allows either choice; refusing avoids framing disagreements with proxies).
    case invalidLineEnding
    /// Request-line is not `method SP request-target SP HTTP-version` (RFC 9112 §3).
    case invalidRequestLine
    /// Method is not a token (RFC 9110 §9.1).
    case invalidMethod
    /// Target is not origin-form, or holds a byte outside VCHAR or malformed percent-encoding
    /// (RFC 9112 §3.2). Asterisk-form and absolute-form are refused too.
    case invalidTarget
    /// Version is not `HTTP/DIGIT.DIGIT` (RFC 9112 §2.3).
    case invalidVersion
    /// A well-formed version other than 1.0 / 1.1 (RFC 9110 §15.6.6).
    case unsupportedVersion
    /// Field name empty or not a token, or whitespace between name and colon (RFC 9112 §5.1).
    case invalidHeaderName
    /// Field value holds CR, LF, NUL or another control other than HTAB (RFC 9110 §5.5).
    case invalidHeaderValue
    /// A field line starting with SP/HTAB (RFC 9112 §5.2: we reject rather than unfold).
    case obsoleteLineFolding
    /// Content-Length not `1*DIGIT`, not representable, or duplicates that differ (RFC 9110 §8.6,
    /// RFC 9112 §6.3 item 5).
    case invalidContentLength
    /// HTTP/1.1 request without exactly one valid Host (RFC 9112 §3.2).
    case invalidHost
    /// Transfer-Encoding present: only Content-Length bodies are supported (RFC 9112 §6.1: a
    /// server that does not understand a transfer coding SHOULD answer 501).
    case transferEncodingNotSupported
    /// Request head longer than `HTTPLimits.maxHeaderBytes`.
    case headTooLarge
    /// More field lines than `HTTPLimits.maxHeaderCount`.
    case tooManyHeaders
    /// Content-Length above the cap the route chose for this request.
    case bodyTooLarge(limit: Int)

    /// Status code sent for this error.
    public var statusCode: Int {
        switch self {
        case .invalidLineEnding, .invalidRequestLine, .invalidMethod, .invalidTarget, .invalidVersion,
             .invalidHeaderName, .invalidHeaderValue, .obsoleteLineFolding, .invalidContentLength,
             .invalidHost:
            400
        case .bodyTooLarge: 413
        case .headTooLarge, .tooManyHeaders: 431
        case .transferEncodingNotSupported: 501
        case .unsupportedVersion: 505
        }
    }

    /// Always true: see the type comment. Kept as a property so callers do not hard-code it.
    public var closesConnection: Bool { true }

    /// Error code for the JSON error body. 400 is the protocol's INVALID_PAYLOAD (docs/protocol.md "HTTP");
    /// the others have no contract code, so they are named after their status.
    public var errorCode: String {
        switch statusCode {
        case 400: "INVALID_PAYLOAD"
        case 413: "PAYLOAD_TOO_LARGE"
        case 431: "HEADERS_TOO_LARGE"
        case 501: "NOT_IMPLEMENTED"
        default: "HTTP_VERSION_NOT_SUPPORTED"
        }
    }

    /// A short, fixed, peer-data-free message for the JSON error body.
    public var message: String {
        switch self {
        case .invalidLineEnding: "lines must end in CRLF"
        case .invalidRequestLine: "malformed request line"
        case .invalidMethod: "malformed method"
        case .invalidTarget: "request target must be origin-form"
        case .invalidVersion: "malformed HTTP version"
        case .unsupportedVersion: "only HTTP/1.0 and HTTP/1.1 are supported"
        case .invalidHeaderName: "malformed header field name"
        case .invalidHeaderValue: "malformed header field value"
        case .obsoleteLineFolding: "obsolete line folding is not accepted"
        case .invalidContentLength: "invalid Content-Length"
        case .invalidHost: "missing or invalid Host"
        case .transferEncodingNotSupported: "Transfer-Encoding is not supported; send Content-Length"
        case .headTooLarge: "request head too large"
        case .tooManyHeaders: "too many header fields"
        case .bodyTooLarge: "request body too large"
        }
    }
}
