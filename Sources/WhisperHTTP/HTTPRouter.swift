/// Maps (method, path) to a handler. Routes are indexed by their first literal segment, so a
/// lookup splits the path once into `Substring`s (no copies) and only compares against routes that
/// can share its first segment; parameters are decoded only for the route that matched.
///
/// Rules:
/// - Methods are case-sensitive (RFC 9110 §9.1).
/// - When several patterns match a path, the first registered wins.
/// - HEAD falls back to the GET route of the path when no HEAD route exists (RFC 9110 §9.3.2;
///   serialize with `omitBody: true`), and `Allow` then lists HEAD too.
/// - The path is matched raw; parameters are decoded after (see `HTTPPathParameters.decode`).
///   A rejected parameter means no match (404), not 400, so traversal probes learn nothing.
/// - Trailing slashes are significant and never redirected (see `HTTPRoutePattern`).
public struct HTTPRouter<Handler> {
    public enum Match {
        case found(Handler, HTTPPathParameters)
        /// The path exists for other methods; answer 405 with `Allow` (RFC 9110 §15.5.6).
        case methodNotAllowed(allowed: [String])
        case notFound
    }

    struct Route {
        let method: String
        let pattern: HTTPRoutePattern
        let handler: Handler
    }

    private var routes: [Route] = []
    /// Route indices by first literal segment, ascending.
    private var byFirstLiteral: [Substring: [Int]] = [:]
    /// Routes whose first segment is a parameter (or the root pattern), ascending.
    private var unindexed: [Int] = []

    public init() {}

    public mutating func add(_ method: String, _ pattern: String, _ handler: Handler) throws(HTTPRouteError) {
        guard !method.isEmpty, method.utf8.allSatisfy(ASCII.isTokenChar) else { throw .invalidMethod(method) }
        let compiled = try HTTPRoutePattern(pattern)
        if routes.contains(where: { $0.method == method && $0.pattern.hasSameShape(as: compiled) }) {
            throw .duplicateRoute(method: method, pattern: pattern)
        }
        let index = routes.count
        routes.append(Route(method: method, pattern: compiled, handler: handler))
        if let literal = compiled.firstLiteral {
            byFirstLiteral[Substring(literal), default: []].append(index)
        } else {
            unindexed.append(index)
        }
    }

    /// `path` is the raw path of the request target, without the query.
    public func match(method: String, path: some StringProtocol) -> Match {
        guard let segments = Self.split(path) else { return .notFound }
        let indexed = segments.first.flatMap { byFirstLiteral[Substring($0)] } ?? []

        var allowed: [String] = []
        var getFallback: (Handler, HTTPPathParameters)?
        var i = 0, j = 0
        // Merge the two ascending index lists so "first registered wins" holds across both.
        while i < indexed.count || j < unindexed.count {
            let next: Int
            if j >= unindexed.count || (i < indexed.count && indexed[i] < unindexed[j]) {
                next = indexed[i]; i += 1
            } else {
                next = unindexed[j]; j += 1
            }
            let route = routes[next]
            guard route.pattern.matchesShape(segments), let params = route.pattern.parameters(of: segments) else {
                continue
            }
            if route.method == method { return .found(route.handler, params) }
            if method == "HEAD", route.method == "GET", getFallback == nil { getFallback = (route.handler, params) }
            if !allowed.contains(route.method) { allowed.append(route.method) }
        }
        if let (handler, params) = getFallback { return .found(handler, params) }
        guard !allowed.isEmpty else { return .notFound }
        if allowed.contains("GET"), !allowed.contains("HEAD") { allowed.append("HEAD") }
        return .methodNotAllowed(allowed: allowed)
    }

    /// "/a/b" → ["a", "b"]; "/" → []; "/a/" → ["a", ""] (an empty segment matches nothing).
    /// Nil when the path is not "/"-rooted.
    static func split(_ path: some StringProtocol) -> [Substring]? {
        let path = Substring(path)
        guard path.first == "/" else { return nil }
        if path.utf8.count == 1 { return [] }
        return path.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
    }
}

extension HTTPRouter: Sendable where Handler: Sendable {}
extension HTTPRouter.Route: Sendable where Handler: Sendable {}
extension HTTPRouter.Match: Sendable where Handler: Sendable {}
