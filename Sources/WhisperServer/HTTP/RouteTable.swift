import WhisperHTTP
import WhisperServices

/// One listener's routes. A handler answers through `respond`, possibly later (after a
/// PostgreSQL or Redis round trip); it is always called on the connection's loop.
struct RouteTable: Sendable {
    typealias Respond = (HTTPResponse) -> Void
    typealias Handler = @Sendable (RouteRequest, LoopContext, @escaping Respond) -> Void
    /// Checks a request head before its body is read or its path is routed; the answer that
    /// refuses it, or nil to go on.
    typealias HeadGate = @Sendable (HTTPRequestHead, ClientRef, LoopContext) -> HTTPResponse?

    struct Route: Sendable {
        let handler: Handler
        let maxBodyBytes: Int
    }

    /// What to do with a request whose head has arrived.
    enum HeadDecision {
        /// Read a body of at most this many bytes (a larger Content-Length is 413), then dispatch.
        case read(maxBodyBytes: Int)
        /// Answer this without reading the body (the connection closes if one was declared).
        case refuse(HTTPResponse)
    }

    private var router = HTTPRouter<Route>()
    private var gates: [(prefix: String, gate: HeadGate)] = []

    /// Registers a route; patterns are fixed at start-up, so a bad one is a programming error.
    mutating func add(_ method: String, _ pattern: String, maxBodyBytes: Int = 0, _ handler: @escaping Handler) {
        do {
            try router.add(method, pattern, Route(handler: handler, maxBodyBytes: maxBodyBytes))
        } catch {
            preconditionFailure("invalid route \(method) \(pattern): \(error)")
        }
    }

    /// Puts `gate` in front of the path `prefix` and every path under it, routed or not.
    mutating func guardPaths(under prefix: String, _ gate: @escaping HeadGate) {
        gates.append((prefix, gate))
    }

    /// Decided from the head alone, before any body byte is buffered: a gate's refusal first;
    /// then, for a body larger than the route takes, the 404/405 of a request no route takes
    /// (docs/protocol.md "HTTP"), else the route's body cap.
    func admit(_ head: HTTPRequestHead, client: ClientRef, context: LoopContext) -> HeadDecision {
        let path = head.path
        for (prefix, gate) in gates where path == prefix || path.hasPrefix(prefix + "/") {
            if let refused = gate(head, client, context) { return .refuse(refused) }
        }
        let limit = bodyLimit(method: head.method, path: path) ?? 0
        if head.contentLength > limit, let miss = unrouted(method: head.method, path: path) { return .refuse(miss) }
        return .read(maxBodyBytes: limit)
    }

    func bodyLimit(method: String, path: some StringProtocol) -> Int? {
        if case .found(let route, _) = router.match(method: method, path: path) { return route.maxBodyBytes }
        return nil
    }

    func dispatch(_ request: HTTPRequest, client: ClientRef, context: LoopContext, respond: @escaping Respond) {
        if case .found(let route, let parameters) = router.match(method: request.method, path: request.path) {
            route.handler(RouteRequest(http: request, parameters: parameters, client: client), context, respond)
        } else if let miss = unrouted(method: request.method, path: request.path) {
            respond(miss)
        }
    }

    /// The answer to a request no route takes: 405 with `Allow` when the path takes other
    /// methods, else 404; nil when a route takes it.
    func unrouted(method: String, path: some StringProtocol) -> HTTPResponse? {
        switch router.match(method: method, path: path) {
        case .found: nil
        case .methodNotAllowed(let allowed): .methodNotAllowed(allowed: allowed)
        case .notFound: .error(status: .notFound, code: "NOT_FOUND", message: "no such endpoint")
        }
    }
}

struct RouteRequest {
    let http: HTTPRequest
    let parameters: HTTPPathParameters
    /// Who asks: the peer IP (rate limits) and the connection.
    let client: ClientRef
}
