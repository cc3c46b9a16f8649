/// What the client core needs from the platform: a WebSocket to the relay and plain HTTP(S)
/// requests (key look-ups, presigned uploads). Blocking calls, made from the one thread that
/// drives a `ClientSession`. Linux implements it over sockets and OpenSSL
/// (`WhisperClientLinux.SocketTransport`); an iOS app can implement it over
/// `URLSessionWebSocketTask` and `URLSession`. Nothing else in the core touches the network.
public protocol ClientTransport: Sendable {
    /// Opens the WebSocket (`GET /ws`), handshake done.
    func connect() throws(TransportError) -> any ClientConnection
    /// One HTTP request to an absolute URL (the relay's or a presigned storage URL).
    func http(_ request: HTTPRequest) throws(TransportError) -> HTTPResponse
    /// `scheme://host:port` of the relay's HTTP endpoints.
    var httpBase: String { get }
}

/// One open WebSocket. Pings are answered inside; only text messages and the close reach the core.
public protocol ClientConnection: AnyObject {
    func send(_ text: [UInt8]) throws(TransportError)
    /// The next text message or close, or `.timeout` when nothing came within `timeoutMillis`.
    func receive(timeoutMillis: Int) throws(TransportError) -> TransportEvent
    /// Sends a Close (1000) if still open and releases the socket; idempotent.
    func close()
}

public enum TransportEvent: Equatable, Sendable {
    case text([UInt8])
    /// The server closed (code nil: without a Close frame, RFC 6455's 1006).
    case closed(code: UInt16?, reason: [UInt8])
    case timeout
}

/// The connection failed (refused, reset, TLS, handshake, a frame the client cannot accept).
/// Always retryable from the core's point of view; `description` names the failing step.
public struct TransportError: Error, Equatable, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }

    /// The peer ended the stream.
    public static let closed = TransportError("closed")
}

public struct HTTPRequest: Sendable {
    public var method: String
    public var url: String
    public var headers: [(String, String)]
    public var body: [UInt8]

    public init(method: String, url: String, headers: [(String, String)] = [], body: [UInt8] = []) {
        (self.method, self.url, self.headers, self.body) = (method, url, headers, body)
    }
}

public struct HTTPResponse: Sendable {
    public var status: Int
    public var body: [UInt8]

    public init(status: Int, body: [UInt8]) { (self.status, self.body) = (status, body) }
}
