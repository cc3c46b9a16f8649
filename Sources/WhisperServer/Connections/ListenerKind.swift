/// Which listener a connection arrived on: admin routes are never served publicly.
enum ListenerKind: String, Sendable {
    case `public`
    case admin
}
