extension HTTPResponse {
    /// Wire bytes of this response (RFC 9112 §4, §5, §6).
    ///
    /// - `closeConnection`: emit `Connection: close`; the driver closes after writing.
    /// - `requestVersion`: an HTTP/1.0 client kept alive gets `Connection: keep-alive` (RFC 9112
    ///   §9.3); the status line is always HTTP/1.1 (RFC 9110 §6.2).
    /// - `omitBody`: for HEAD — the Content-Length of the body is sent, the body is not
    ///   (RFC 9110 §9.3.2).
    /// - `date`: an IMF-fixdate (see `HTTPDate`), sent as `Date` unless the response has one.
    ///
    /// `Content-Length` is always computed from `body` except for 1xx and 204, which carry none
    /// (RFC 9110 §8.6). Any `Content-Length`/`Transfer-Encoding` the handler set is dropped so the
    /// framing cannot lie. Header names that are not tokens are skipped and controls in values are
    /// replaced by SP (RFC 9110 §5.5), so a value echoing peer data cannot split the response.
    public func serialized(closeConnection: Bool, requestVersion: HTTPVersion = .http1_1,
                           omitBody: Bool = false, date: String? = nil) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(128 + headers.count * 32 + (omitBody ? 0 : body.count))
        serialize(into: &out, closeConnection: closeConnection, requestVersion: requestVersion,
                  omitBody: omitBody, date: date)
        return out
    }

    public func serialize(into out: inout [UInt8], closeConnection: Bool, requestVersion: HTTPVersion = .http1_1,
                          omitBody: Bool = false, date: String? = nil) {
        out.append(contentsOf: "HTTP/1.1 ".utf8)
        out.append(contentsOf: String(status.code).utf8)
        out.append(ASCII.space)
        out.append(contentsOf: status.reasonPhrase.utf8)
        out.append(contentsOf: "\r\n".utf8)

        var hasConnection = false, hasDate = false
        for field in headers {
            if ASCII.equalsIgnoringCase(field.name, "Content-Length")
                || ASCII.equalsIgnoringCase(field.name, "Transfer-Encoding") { continue }
            if ASCII.equalsIgnoringCase(field.name, "Connection") {
                if closeConnection { continue }
                hasConnection = true
            }
            if ASCII.equalsIgnoringCase(field.name, "Date") { hasDate = true }
            Self.appendField(name: field.name, value: field.value, to: &out)
        }
        if let date, !hasDate { Self.appendField(name: "Date", value: date, to: &out) }
        if status.allowsContent {
            Self.appendField(name: "Content-Length", value: String(body.count), to: &out)
        }
        if closeConnection {
            Self.appendField(name: "Connection", value: "close", to: &out)
        } else if requestVersion == .http1_0, !hasConnection {
            Self.appendField(name: "Connection", value: "keep-alive", to: &out)
        }
        out.append(contentsOf: "\r\n".utf8)
        if status.allowsContent, !omitBody { out.append(contentsOf: body) }
    }

    /// The interim `100 Continue` (RFC 9110 §15.2.1), for `HTTPRequestHead.expectsContinue`.
    public static let continueBytes: [UInt8] = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    private static func appendField(name: String, value: String, to out: inout [UInt8]) {
        guard !name.isEmpty, name.utf8.allSatisfy(ASCII.isTokenChar) else { return }
        out.append(contentsOf: name.utf8)
        out.append(contentsOf: ": ".utf8)
        for byte in value.utf8 {
            out.append(ASCII.isFieldValueChar(byte) ? byte : ASCII.space)
        }
        out.append(contentsOf: "\r\n".utf8)
    }
}
