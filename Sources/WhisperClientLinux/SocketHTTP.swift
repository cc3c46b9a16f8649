import WhisperClient

/// A minimal HTTP/1.1 client over `BlockingSocket`: one request per connection
/// (`Connection: close`), the body read to the end of the stream (`Content-Length` or chunked).
enum SocketHTTP {
    /// Largest response body kept (an attachment ciphertext is at most 50 MB + 16).
    static let maxResponseBytes = 64 * 1024 * 1024

    static func send(_ request: HTTPRequest, caFile: String?, timeoutSeconds: Int) throws(TransportError) -> HTTPResponse {
        guard let url = ServerURL(request.url) else { throw TransportError("bad URL") }
        let socket = try BlockingSocket(host: url.host, port: url.port, tls: url.tls, caFile: caFile,
                                        timeoutSeconds: timeoutSeconds)
        defer { socket.close() }
        var head = "\(request.method) \(url.path) HTTP/1.1\r\nHost: \(url.hostHeader)\r\nConnection: close\r\n"
        for (name, value) in request.headers { head += "\(name): \(value)\r\n" }
        if !request.body.isEmpty || request.method == "PUT" || request.method == "POST" {
            head += "Content-Length: \(request.body.count)\r\n"
        }
        head += "\r\n"
        try socket.write(Array(head.utf8) + request.body)
        var bytes: [UInt8] = []
        while true {
            guard bytes.count <= maxResponseBytes else { throw TransportError("HTTP: response too large") }
            do throws(TransportError) {
                guard try socket.read(into: &bytes, timeoutMillis: timeoutSeconds * 1000) > 0 else {
                    throw TransportError("HTTP: timed out")
                }
            } catch .closed {
                break
            }
        }
        return try parse(bytes)
    }

    static func parse(_ bytes: [UInt8]) throws(TransportError) -> HTTPResponse {
        guard let end = headEnd(bytes) else { throw TransportError("HTTP: incomplete response") }
        let lines = String(decoding: bytes[..<end], as: UTF8.self).split(separator: "\r\n")
        let status = lines.first.flatMap { $0.split(separator: " ").dropFirst().first }.flatMap { Int($0) }
        guard let status else { throw TransportError("HTTP: malformed status line") }
        let chunked = lines.contains { $0.lowercased().hasPrefix("transfer-encoding:") && $0.lowercased().contains("chunked") }
        let body = Array(bytes[end...])
        return HTTPResponse(status: status, body: chunked ? try dechunk(body) : body)
    }

    static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for i in 0...(bytes.count - 4) where bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 {
            return i + 4
        }
        return nil
    }

    static func dechunk(_ body: [UInt8]) throws(TransportError) -> [UInt8] {
        var out: [UInt8] = [], index = 0
        while index < body.count {
            guard let lineEnd = (index..<body.count - 1).first(where: { body[$0] == 13 && body[$0 + 1] == 10 }) else { break }
            let sizeText = String(decoding: body[index..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(), radix: 16), size >= 0 else {
                throw TransportError("HTTP: bad chunk size")
            }
            if size == 0 { break }
            let start = lineEnd + 2
            guard size <= body.count - start else { throw TransportError("HTTP: truncated chunk") }
            out.append(contentsOf: body[start..<start + size])
            index = start + size + 2
        }
        return out
    }
}

private extension Substring {
    func trimmingCharacters() -> String { String(filter { !$0.isWhitespace }) }
}
