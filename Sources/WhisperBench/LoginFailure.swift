/// Why a login did not reach `register_ack`.
enum LoginFailure: Error, Equatable, Sendable {
    /// An `error` frame with this code (e.g. `RATE_LIMITED`, `AUTH_FAILED`).
    case refused(String)
    /// The connection failed or ended first.
    case transport(ClientEnd)
    /// A reply we could not read.
    case badFrame

    var label: String {
        switch self {
        case .refused(let code): return code
        case .transport(let end): return end.label
        case .badFrame: return "bad_frame"
        }
    }
}
