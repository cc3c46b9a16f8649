/// Why a store (Redis, PostgreSQL) could not answer. Every case is `INTERNAL_ERROR` on the
/// wire; the text is for the log line only and never reaches a client.
public enum StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not reachable, timed out, overloaded or closed: retrying later may work.
    case unavailable(String)
    /// A reply of a shape the code does not expect (a bug, or data written by something else).
    case unexpectedReply(String)

    public var description: String {
        switch self {
        case .unavailable(let reason): return "store unavailable: \(reason)"
        case .unexpectedReply(let reason): return "unexpected store reply: \(reason)"
        }
    }
}

/// Store completions: always called on the loop the request came from, never inside the
/// call that started the request.
public typealias StoreCompletion<T> = (Result<T, StoreError>) -> Void
