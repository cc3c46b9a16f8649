/// A parsed, validated request line and header section (RFC 9112 §2.1), available before the body
/// is read so a route can choose the body cap and a driver can decide on `100 Continue`.
public struct HTTPRequestHead: Sendable, Equatable {
    /// Case-sensitive token (RFC 9110 §9.1), e.g. "GET".
    public var method: String
    /// The raw origin-form request-target, e.g. "/admin/reports?status=open".
    public var target: String
    public var version: HTTPVersion
    public var headers: HTTPHeaders
    /// Declared body length; 0 when Content-Length is absent (RFC 9112 §6.3 item 7).
    public var contentLength: Int

    public init(method: String, target: String, version: HTTPVersion, headers: HTTPHeaders, contentLength: Int) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
        self.contentLength = contentLength
    }

    /// The path part of the target, still percent-encoded (so `%2F` stays distinguishable from `/`).
    public var path: Substring {
        target.utf8.firstIndex(of: ASCII.question).map { target[..<$0] } ?? target[...]
    }

    /// The raw query after "?", or nil when the target has no "?".
    public var query: Substring? {
        target.utf8.firstIndex(of: ASCII.question).map { target[target.index(after: $0)...] }
    }

    /// Percent-decoded query parameters; nil when a decoded name or value is not valid UTF-8.
    public var queryParameters: HTTPQueryParameters? {
        HTTPQueryParameters(parsing: query ?? "")
    }

    /// Persistence per RFC 9112 §9.3: HTTP/1.1 stays open unless `Connection: close`; HTTP/1.0
    /// stays open only with `Connection: keep-alive`.
    public var keepAlive: Bool {
        if headers.containsToken("close", for: "Connection") { return false }
        switch version {
        case .http1_1: return true
        case .http1_0: return headers.containsToken("keep-alive", for: "Connection")
        }
    }

    /// The client asks to switch protocols: an `Upgrade` field plus the `upgrade` connection
    /// option (RFC 9110 §7.8). After answering 101 the driver takes `takeRemainingBytes()`.
    public var isUpgradeRequest: Bool {
        headers.contains("Upgrade") && headers.containsToken("upgrade", for: "Connection")
    }

    /// `Expect: 100-continue` (RFC 9110 §10.1.1): the client may wait for an interim response
    /// before sending the body.
    public var expectsContinue: Bool {
        headers.containsToken("100-continue", for: "Expect")
    }
}
