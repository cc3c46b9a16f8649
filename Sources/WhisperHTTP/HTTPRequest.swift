/// One complete request: its head and exactly `contentLength` body bytes.
public struct HTTPRequest: Sendable, Equatable {
    public var head: HTTPRequestHead
    public var body: [UInt8]

    public init(head: HTTPRequestHead, body: [UInt8] = []) {
        self.head = head
        self.body = body
    }

    public var method: String { head.method }
    public var target: String { head.target }
    public var path: Substring { head.path }
    public var query: Substring? { head.query }
    public var queryParameters: HTTPQueryParameters? { head.queryParameters }
    public var version: HTTPVersion { head.version }
    public var headers: HTTPHeaders { head.headers }
    public var keepAlive: Bool { head.keepAlive }
    public var isUpgradeRequest: Bool { head.isUpgradeRequest }
}
