import Foundation

/// One HTTP/1.1 request over a fresh socket, for tests.
public struct TestHTTPResponse {
    public let status: Int
    public let headers: [String: String]
    public let body: [UInt8]
    public var text: String { String(decoding: body, as: UTF8.self) }
    public var json: [String: Any]? { try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] }
}

public enum TestHTTP {
    public static func get(port: Int, _ path: String, headers: [String] = []) throws -> TestHTTPResponse {
        try request(port: port, "GET \(path) HTTP/1.1\r\nHost: t\r\nConnection: close\r\n" + headers.map { $0 + "\r\n" }.joined() + "\r\n")
    }

    /// Sends raw request bytes and parses a `Connection: close` response.
    public static func request(port: Int, _ raw: String) throws -> TestHTTPResponse {
        let socket = try TestSocket(port: port)
        try socket.send(raw)
        return try parse(socket.receiveUntilClosed())
    }

    /// `method` on an absolute `http://127.0.0.1:PORT/path?query` URL (a presigned S3 URL; the
    /// host may also be `localhost`, sent as such in `Host`), with `headers` and `body`, over a
    /// fresh `Connection: close` socket.
    public static func request(_ method: String, url: String, headers: [String: String] = [:],
                               body: [UInt8] = []) throws -> TestHTTPResponse {
        guard let components = URLComponents(string: url), components.scheme == "http", let host = components.host,
              let port = components.port
        else { throw TestSocket.Failure.io("not an http://host:port URL: \(url)") }
        let target = components.percentEncodedPath + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
        var head = "\(method) \(target) HTTP/1.1\r\nHost: \(host):\(port)\r\nConnection: close\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
        if headers.keys.allSatisfy({ $0.lowercased() != "content-length" }), !body.isEmpty || method == "PUT" {
            head += "Content-Length: \(body.count)\r\n"
        }
        let socket = try TestSocket(host: host == "localhost" ? "127.0.0.1" : host, port: port)
        try socket.send(Array((head + "\r\n").utf8) + body)
        return try parse(socket.receiveUntilClosed())
    }

    public static func parse(_ bytes: [UInt8]) throws -> TestHTTPResponse {
        guard let end = bytes.firstRange(of: [13, 10, 13, 10]) else { throw TestSocket.Failure.io("no response head") }
        let head = String(decoding: bytes[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = head[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw TestSocket.Failure.io("bad status line") }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let body = Array(bytes[end.upperBound...])
        let chunked = headers["transfer-encoding"]?.lowercased().contains("chunked") == true
        return TestHTTPResponse(status: status, headers: headers, body: chunked ? dechunk(body) : body)
    }

    /// RFC 9112 §7.1 chunked body → its bytes (extensions and trailers ignored).
    static func dechunk(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [], index = 0
        while let lineEnd = bytes[index...].firstRange(of: [13, 10]) {
            let sizeText = String(decoding: bytes[index..<lineEnd.lowerBound], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16), size > 0,
                  lineEnd.upperBound + size <= bytes.count else { break }
            out += bytes[lineEnd.upperBound..<(lineEnd.upperBound + size)]
            index = lineEnd.upperBound + size + 2
            if index >= bytes.count { break }
        }
        return out
    }
}
