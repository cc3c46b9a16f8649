import WhisperProtocol

/// A response to serialize. `Content-Length` and `Connection` are owned by the serializer
/// (`HTTPResponse+Serialization.swift`); values set here for them are replaced.
public struct HTTPResponse: Sendable, Equatable {
    public var status: HTTPStatus
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(status: HTTPStatus, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON response; `body` must already be UTF-8 JSON (RFC 8259 §8.1).
    public static func json(status: HTTPStatus = .ok, body: [UInt8], headers: HTTPHeaders = HTTPHeaders()) -> HTTPResponse {
        var all = headers
        all.replaceOrAdd(name: "Content-Type", value: "application/json")
        return HTTPResponse(status: status, headers: all, body: body)
    }

    /// The protocol's error body `{"error":{"code":"…","message":"…"}}` (docs/protocol.md "HTTP").
    public static func error(status: HTTPStatus, code: String, message: String,
                             extraHeaders: HTTPHeaders = HTTPHeaders()) -> HTTPResponse {
        var body: [UInt8] = []
        body.reserveCapacity(32 + code.utf8.count + message.utf8.count)
        body.append(contentsOf: #"{"error":{"code":"#.utf8)
        JSONString.appendQuoted(code, to: &body)
        body.append(contentsOf: #","message":"#.utf8)
        JSONString.appendQuoted(message, to: &body)
        body.append(contentsOf: "}}".utf8)
        return json(status: status, body: body, headers: extraHeaders)
    }

    /// 429 with `Retry-After` in whole seconds (RFC 9110 §10.2.3), rounded up, at least 1.
    public static func rateLimited(retryAfterSeconds: Int, message: String = "rate limit exceeded") -> HTTPResponse {
        error(status: .tooManyRequests, code: "RATE_LIMITED", message: message,
              extraHeaders: ["Retry-After": String(max(1, retryAfterSeconds))])
    }

    /// 405 with the `Allow` list the router found (RFC 9110 §15.5.6 requires it).
    public static func methodNotAllowed(allowed: [String]) -> HTTPResponse {
        error(status: .methodNotAllowed, code: "METHOD_NOT_ALLOWED", message: "method not allowed",
              extraHeaders: ["Allow": allowed.joined(separator: ", ")])
    }

    /// 426 for a WebSocket handshake with an unsupported version: RFC 6455 §4.4 names the versions
    /// we speak in `Sec-WebSocket-Version`; RFC 9110 §15.5.22 requires `Upgrade`.
    public static func upgradeRequired(webSocketVersion: String = "13", message: String = "unsupported WebSocket version") -> HTTPResponse {
        error(status: .upgradeRequired, code: "INVALID_PAYLOAD", message: message,
              extraHeaders: ["Sec-WebSocket-Version": webSocketVersion, "Upgrade": "websocket"])
    }

    /// The JSON error response for a parse failure; send it, then close.
    public static func parseError(_ error: HTTPParseError) -> HTTPResponse {
        HTTPResponse.error(status: HTTPStatus(code: error.statusCode), code: error.errorCode, message: error.message)
    }
}
