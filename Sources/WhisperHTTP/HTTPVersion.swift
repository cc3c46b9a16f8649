/// The two protocol versions this server speaks (RFC 9112 §2.3). Anything else with a valid
/// `HTTP/DIGIT.DIGIT` shape is 505; anything not of that shape is 400.
public enum HTTPVersion: Sendable, Equatable, CustomStringConvertible {
    case http1_0
    case http1_1

    public var description: String {
        switch self {
        case .http1_0: "HTTP/1.0"
        case .http1_1: "HTTP/1.1"
        }
    }
}
