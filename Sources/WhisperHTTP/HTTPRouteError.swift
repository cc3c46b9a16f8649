/// Mistakes in route registration (programmer errors, never caused by peer bytes).
public enum HTTPRouteError: Error, Sendable, Equatable {
    /// Not "/"-rooted, empty or malformed segment, bad parameter name, repeated name, or more than
    /// one `{name...}`.
    case invalidPattern(String)
    /// Method is not a token (RFC 9110 §9.1).
    case invalidMethod(String)
    /// The same method registered twice for patterns matching the same paths (same literals and
    /// parameter positions, whatever the parameter names).
    case duplicateRoute(method: String, pattern: String)
}
