import WhisperHTTP
import WhisperServices

/// One listener's routes. A handler answers through `respond`, possibly later (after a
/// PostgreSQL or Redis round trip); it is always called on the connection's loop.
struct RouteTable: Sendable {
    typealias Respond = (HTTPResponse) -> Void
    typealias Handler = @Sendable (RouteRequest, LoopContext, @escaping Respond) -> Void

    struct Route: Sendable {
        let handler: Handler
        let maxBodyBytes: Int
    }

    private var router = HTTPRouter<Route>()

    /// Registers a route; patterns are fixed at start-up, so a bad one is a programming error.
    mutating func add(_ method: String, _ pattern: String, maxBodyBytes: Int = 0, _ handler: @escaping Handler) {
        do {
            try router.add(method, pattern, Route(handler: handler, maxBodyBytes: maxBodyBytes))
        } catch {
            preconditionFailure("invalid route \(method) \(pattern): \(error)")
        }
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
