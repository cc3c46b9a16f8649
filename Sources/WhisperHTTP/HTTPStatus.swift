/// A response status code with its reason phrase (RFC 9110 §15). The phrase is informational
/// only; unknown codes get an empty phrase, which RFC 9112 §4 allows.
public struct HTTPStatus: Sendable, Equatable, Hashable {
    public let code: Int

    public init(code: Int) { self.code = code }

    public var reasonPhrase: String {
        switch code {
        case 100: "Continue"
        case 101: "Switching Protocols"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 304: "Not Modified"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 410: "Gone"
        case 411: "Length Required"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 415: "Unsupported Media Type"
        case 417: "Expectation Failed"
        case 422: "Unprocessable Content"
        case 426: "Upgrade Required"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        default: ""
        }
    }

    /// RFC 9110 §8.6 / §15.3.5: no Content-Length (and no content) in 1xx and 204 responses.
    public var allowsContent: Bool { !(100...199).contains(code) && code != 204 }

    public static let `continue` = HTTPStatus(code: 100)
    public static let switchingProtocols = HTTPStatus(code: 101)
    public static let ok = HTTPStatus(code: 200)
    public static let created = HTTPStatus(code: 201)
    public static let noContent = HTTPStatus(code: 204)
    public static let badRequest = HTTPStatus(code: 400)
    public static let unauthorized = HTTPStatus(code: 401)
    public static let forbidden = HTTPStatus(code: 403)
    public static let notFound = HTTPStatus(code: 404)
    public static let methodNotAllowed = HTTPStatus(code: 405)
    public static let contentTooLarge = HTTPStatus(code: 413)
    public static let upgradeRequired = HTTPStatus(code: 426)
    public static let tooManyRequests = HTTPStatus(code: 429)
    public static let requestHeaderFieldsTooLarge = HTTPStatus(code: 431)
    public static let internalServerError = HTTPStatus(code: 500)
    public static let notImplemented = HTTPStatus(code: 501)
    public static let serviceUnavailable = HTTPStatus(code: 503)
    public static let httpVersionNotSupported = HTTPStatus(code: 505)
}

extension HTTPStatus: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int) { self.init(code: value) }
}
