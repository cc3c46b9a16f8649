import WhisperHTTP
import WhisperOps
import WhisperServices

extension HTTPResponse {
    /// A use case's failure as the protocol's HTTP error (docs/protocol.md "HTTP"): the error
    /// code's status, `Retry-After` with `RATE_LIMITED`, and for an internal error a log line
    /// with a correlation id that the body repeats (never the reason itself).
    static func failure(_ error: ServiceError, context: LoopContext) -> HTTPResponse {
        let message = context.shared.report(error, connId: nil, whisperId: nil, frame: nil)
        if let retryAfterMs = error.retryAfterMs {
            return .rateLimited(retryAfterSeconds: Int((retryAfterMs + 999) / 1000), message: message)
        }
        return .error(status: HTTPStatus(code: error.code.httpStatus), code: error.code.rawValue, message: message)
    }

    /// 413 for a body whose decoded content is over its cap: the same code as a
    /// `Content-Length` over the route's cap (`HTTPParseError.bodyTooLarge`), so a client sees
    /// one 413 whichever check caught it.
    static func payloadTooLarge(_ message: String) -> HTTPResponse {
        .error(status: .contentTooLarge, code: HTTPParseError.bodyTooLarge(limit: 0).errorCode, message: message)
    }
}
