import WhisperProtocol

/// Turns the bytes of one complete head (request-line, field lines, empty line; every line ending
/// already checked to be CRLF by the scanner) into a validated `HTTPRequestHead`.
enum HTTPHeadDecoder {
    static func decode(_ head: UnsafeRawBufferPointer, limits: HTTPLimits) -> Result<HTTPRequestHead, HTTPParseError> {
        var lines = CRLFLines(bytes: head)
        guard let requestLine = lines.next() else { return .failure(.invalidRequestLine) }
        let method: String, target: String, version: HTTPVersion
        switch decodeRequestLine(UnsafeRawBufferPointer(rebasing: head[requestLine])) {
        case .failure(let error): return .failure(error)
        case .success(let parts): (method, target, version) = parts
        }

        var headers = HTTPHeaders()
        while let range = lines.next(), !range.isEmpty {
            guard headers.count < limits.maxHeaderCount else { return .failure(.tooManyHeaders) }
            switch decodeFieldLine(UnsafeRawBufferPointer(rebasing: head[range])) {
            case .failure(let error): return .failure(error)
            case .success(let field): headers.add(name: field.name, value: field.value)
            }
        }
        return validateFraming(method: method, target: target, version: version, headers: headers)
    }

    // MARK: - Request-line (RFC 9112 §3)

    /// `method SP request-target SP HTTP-version`, single SPs only (RFC 9112 §3 lets us refuse
    /// other whitespace). The version is checked first so an HTTP/2 preface gets 505, not 400.
    static func decodeRequestLine(_ line: UnsafeRawBufferPointer) -> Result<(String, String, HTTPVersion), HTTPParseError> {
        guard let firstSpace = line.firstIndex(of: ASCII.space),
              let secondSpace = line[(firstSpace + 1)...].firstIndex(of: ASCII.space)
        else { return .failure(.invalidRequestLine) }
        let methodBytes = UnsafeRawBufferPointer(rebasing: line[..<firstSpace])
        let targetBytes = UnsafeRawBufferPointer(rebasing: line[(firstSpace + 1)..<secondSpace])
        let versionBytes = UnsafeRawBufferPointer(rebasing: line[(secondSpace + 1)...])
        guard !methodBytes.isEmpty, !targetBytes.isEmpty, !versionBytes.contains(ASCII.space) else {
            return .failure(.invalidRequestLine)
        }
        let version: HTTPVersion
        switch decodeVersion(versionBytes) {
        case .failure(let error): return .failure(error)
        case .success(let v): version = v
        }
        guard methodBytes.allSatisfy(ASCII.isTokenChar) else { return .failure(.invalidMethod) }
        guard isOriginForm(targetBytes) else { return .failure(.invalidTarget) }
        return .success((
            String(decoding: methodBytes, as: UTF8.self),
            String(decoding: targetBytes, as: UTF8.self),
            version
        ))
    }

    /// `HTTP-version = "HTTP" "/" DIGIT "." DIGIT`, case-sensitive (RFC 9112 §2.3).
    static func decodeVersion(_ bytes: UnsafeRawBufferPointer) -> Result<HTTPVersion, HTTPParseError> {
        guard bytes.count == 8, bytes.starts(with: "HTTP/".utf8),
              ASCII.isDigit(bytes[5]), bytes[6] == UInt8(ascii: "."), ASCII.isDigit(bytes[7])
        else { return .failure(.invalidVersion) }
        switch (bytes[5], bytes[7]) {
        case (UInt8(ascii: "1"), UInt8(ascii: "1")): return .success(.http1_1)
        case (UInt8(ascii: "1"), UInt8(ascii: "0")): return .success(.http1_0)
        default: return .failure(.unsupportedVersion)
        }
    }

    /// `origin-form = absolute-path [ "?" query ]` (RFC 9112 §3.2.1). We accept any VCHAR but "#"
    /// (a fragment is never sent, RFC 9112 §3.2) and require well-formed `%XX` escapes so later
    /// decoding cannot fail on syntax. Asterisk-form and absolute-form do not start with "/".
    static func isOriginForm(_ target: UnsafeRawBufferPointer) -> Bool {
        guard target.first == ASCII.slash else { return false }
        for byte in target where !ASCII.isVisible(byte) || byte == ASCII.hash {
            return false
        }
        return PercentDecoding.isWellFormed(target)
    }

    // MARK: - Field lines (RFC 9112 §5)

    /// `field-name ":" OWS field-value OWS`.
    static func decodeFieldLine(_ line: UnsafeRawBufferPointer) -> Result<HTTPHeaders.Field, HTTPParseError> {
        // RFC 9112 §5.2: obs-fold (and whitespace before the first field line, §2.2) is refused.
        if let first = line.first, first == ASCII.space || first == ASCII.tab {
            return .failure(.obsoleteLineFolding)
        }
        guard let colon = line.firstIndex(of: ASCII.colon), colon > 0 else { return .failure(.invalidHeaderName) }
        let nameBytes = UnsafeRawBufferPointer(rebasing: line[..<colon])
        // RFC 9112 §5.1: whitespace between name and colon MUST be answered with 400; it is not a
        // tchar, so the token check covers it.
        guard nameBytes.allSatisfy(ASCII.isTokenChar) else { return .failure(.invalidHeaderName) }

        var valueStart = colon + 1, valueEnd = line.count
        while valueStart < valueEnd, line[valueStart] == ASCII.space || line[valueStart] == ASCII.tab { valueStart += 1 }
        while valueEnd > valueStart, line[valueEnd - 1] == ASCII.space || line[valueEnd - 1] == ASCII.tab { valueEnd -= 1 }
        let valueBytes = UnsafeRawBufferPointer(rebasing: line[valueStart..<valueEnd])
        guard valueBytes.allSatisfy(ASCII.isFieldValueChar) else { return .failure(.invalidHeaderValue) }
        // obs-text (0x80–0xFF) is kept; it is decoded as UTF-8, invalid sequences become U+FFFD.
        return .success(HTTPHeaders.Field(
            name: String(decoding: nameBytes, as: UTF8.self),
            value: String(decoding: valueBytes, as: UTF8.self)
        ))
    }
}

/// Iterates the lines of a head as ranges without their CRLF. The scanner guarantees every LF is
/// preceded by CR and every CR followed by LF, so splitting on CR is exact.
struct CRLFLines: IteratorProtocol {
    let bytes: UnsafeRawBufferPointer
    var position = 0

    init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    mutating func next() -> Range<Int>? {
        guard position < bytes.count,
              let cr = bytes[position...].firstIndex(of: ASCII.cr)
        else { return nil }
        let line = position..<cr
        position = cr + 2
        return line
    }
}
