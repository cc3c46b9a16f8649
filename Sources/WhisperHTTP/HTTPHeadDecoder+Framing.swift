extension HTTPHeadDecoder {
    /// Message framing and Host checks that need the whole field section.
    static func validateFraming(method: String, target: String, version: HTTPVersion, headers: HTTPHeaders)
        -> Result<HTTPRequestHead, HTTPParseError>
    {
        // RFC 9112 §6.1: we implement no transfer coding, so any Transfer-Encoding is 501. This also
        // settles Transfer-Encoding + Content-Length smuggling attempts (RFC 9112 §6.3 item 3).
        if headers.contains("Transfer-Encoding") { return .failure(.transferEncodingNotSupported) }

        let contentLength: Int
        switch decodeContentLength(headers.values(for: "Content-Length")) {
        case .failure(let error): return .failure(error)
        case .success(let length): contentLength = length
        }

        // RFC 9112 §3.2: HTTP/1.1 needs exactly one Host; any request with several, or with an
        // invalid value, is 400.
        let hosts = headers.values(for: "Host")
        if hosts.count > 1 || (version == .http1_1 && hosts.isEmpty) { return .failure(.invalidHost) }
        if let host = hosts.first, !isValidHost(host) { return .failure(.invalidHost) }

        return .success(HTTPRequestHead(
            method: method, target: target, version: version, headers: headers, contentLength: contentLength
        ))
    }

    /// `Content-Length = 1*DIGIT` (RFC 9110 §8.6). Several lines must agree (RFC 9112 §6.3 item 5);
    /// a list inside one line, signs, spaces and values past `Int.max` are all 400.
    static func decodeContentLength(_ values: [String]) -> Result<Int, HTTPParseError> {
        var result: Int?
        for value in values {
            guard let length = parseDigits(value) else { return .failure(.invalidContentLength) }
            if let earlier = result, earlier != length { return .failure(.invalidContentLength) }
            result = length
        }
        return .success(result ?? 0)
    }

    /// Decimal digits only, overflow-checked; nil for anything else.
    static func parseDigits(_ text: String) -> Int? {
        guard !text.isEmpty else { return nil }
        var value = 0
        for byte in text.utf8 {
            guard ASCII.isDigit(byte) else { return nil }
            let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = shifted.addingReportingOverflow(Int(byte &- UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { return nil }
            value = sum
        }
        return value
    }

    /// `Host = uri-host [ ":" port ]` (RFC 9110 §7.2): the characters of reg-name, IPv4, IP-literal
    /// and port. Empty is allowed (RFC 9112 §3.2). Not a full URI grammar check.
    static func isValidHost(_ host: String) -> Bool {
        host.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"):
                return true
            default:
                return "-._~%!$&'()*+,;=:[]".utf8.contains(byte)
            }
        }
    }
}
