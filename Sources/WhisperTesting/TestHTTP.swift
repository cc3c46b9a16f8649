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
        return TestHTTPResponse(status: status, headers: headers, body: Array(bytes[end.upperBound...]))
    }
}
