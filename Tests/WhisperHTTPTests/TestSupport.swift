@testable import WhisperHTTP

func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

/// Feeds `text` at once and drains every result up to and including the first non-request.
func parseAll(_ text: String, limits: HTTPLimits = .default, bodyLimit: Int? = nil) -> [HTTPParseResult] {
    var parser = HTTPRequestParser(limits: limits)
    parser.feed(bytes(text))
    return drain(&parser, bodyLimit: bodyLimit ?? limits.defaultMaxBodyBytes)
}

func drain(_ parser: inout HTTPRequestParser, bodyLimit: Int) -> [HTTPParseResult] {
    var results: [HTTPParseResult] = []
    while true {
        let result = parser.next(bodyLimit: { _ in bodyLimit })
        results.append(result)
        guard case .request = result else { return results }
    }
}

/// The single outcome of parsing `text` (first result).
func parseOne(_ text: String, limits: HTTPLimits = .default) -> HTTPParseResult {
    parseAll(text, limits: limits)[0]
}

func parseError(_ text: String, limits: HTTPLimits = .default) -> HTTPParseError? {
    if case .error(let error) = parseOne(text, limits: limits) { return error }
    return nil
}

func request(_ result: HTTPParseResult) -> HTTPRequest? {
    if case .request(let request) = result { return request }
    return nil
}

extension HTTPParseResult {
    var isNeedMoreData: Bool {
        if case .needMoreData = self { return true }
        return false
    }
}
