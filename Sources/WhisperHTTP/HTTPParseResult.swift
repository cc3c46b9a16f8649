/// What `HTTPRequestParser.next(bodyLimit:)` produced.
public enum HTTPParseResult: Sendable, Equatable {
    /// One complete request; call `next` again for a pipelined one.
    case request(HTTPRequest)
    /// The buffer holds no complete request yet; feed more bytes.
    case needMoreData
    /// The stream is unusable: answer `error.statusCode` and close. Repeats on every later call.
    case error(HTTPParseError)
}
