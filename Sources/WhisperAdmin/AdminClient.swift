#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// A blocking HTTP/1.1 client for the server's admin listener: `whisper-bench` reads
/// `/metrics` with it at the edges of a measurement window, and `whisper-server admin …`
/// calls the admin API (docs/operations.md "Admin CLI"). It runs on a tool's own thread,
/// never on an event loop; one request per connection (`Connection: close`), read to EOF,
/// with send and receive timeouts. Plain HTTP only: the admin listener binds loopback by
/// default.
public struct AdminClient: Sendable {
    public let endpoint: AdminEndpoint
    public var timeoutSeconds = 5
    /// A larger answer is refused (`malformed`) rather than buffered without end.
    static let maxResponseBytes = 64 << 20

    public init(endpoint: AdminEndpoint, timeoutSeconds: Int = 5) {
        self.endpoint = endpoint
        self.timeoutSeconds = timeoutSeconds
    }

    public enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        case connect(String)
        case io(String)
        case status(Int)
        case malformed

        public var description: String {
            switch self {
            case .connect(let why): return "admin connect: \(why)"
            case .io(let why): return "admin read: \(why)"
            case .status(let code): return "admin status \(code)"
            case .malformed: return "admin response malformed"
            }
        }
    }

    /// A response: its status and body (whatever the status).
    public struct Response: Sendable, Equatable {
        public let status: Int
        public let body: [UInt8]
        public var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// The body of `GET path`; any status but 200 is `Failure.status`.
    public func get(_ path: String) throws(Failure) -> String {
        let response = try send("GET", path, bearer: nil)
        guard response.status == 200 else { throw .status(response.status) }
        return response.text
    }

    /// `method path` with optional bearer token and JSON body; answers any status.
    public func send(_ method: String, _ path: String, bearer: String?, json body: [UInt8]? = nil) throws(Failure) -> Response {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: \(endpoint.host)\r\nConnection: close\r\n"
        if let bearer { head += "Authorization: Bearer \(bearer)\r\n" }
        if let body { head += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n" }
        return try Self.parse(exchange(Array((head + "\r\n").utf8) + (body ?? [])))
    }

    /// Splits a `Connection: close` response. Honours Content-Length when present, else
    /// takes everything after the head.
    static func parse(_ response: [UInt8]) throws(Failure) -> Response {
        guard let separator = response.firstRange(of: [13, 10, 13, 10]) else { throw .malformed }
        let head = String(decoding: response[..<separator.lowerBound], as: UTF8.self).split(separator: "\r\n")
        guard let statusLine = head.first else { throw .malformed }
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else { throw .malformed }
        var body = response[separator.upperBound...]
        for line in head.dropFirst() where line.lowercased().hasPrefix("content-length:") {
            let value = line.dropFirst("content-length:".count).drop { $0 == " " || $0 == "\t" }
            guard let length = Int(value.prefix { $0 != " " && $0 != "\t" }), length <= body.count else { throw .malformed }
            body = body.prefix(length)
        }
        return Response(status: status, body: Array(body))
    }

    /// Writes `request` on a fresh connection and reads the answer to EOF.
    private func exchange(_ request: [UInt8]) throws(Failure) -> [UInt8] {
        let fd = try connect()
        defer { close(fd) }
        var sent = 0
        while sent < request.count {
            let n = request[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { throw .io(String(cString: strerror(errno))) }
            sent += n
        }
        var response: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n == 0 { break }
            if n < 0 {
                if errno == EINTR { continue }
                throw .io(String(cString: strerror(errno)))
            }
            response.append(contentsOf: chunk[..<n])
            guard response.count < Self.maxResponseBytes else { throw .malformed }
        }
        return response
    }

    private func connect() throws(Failure) -> Int32 {
        var v4 = sockaddr_in()
        var v6 = sockaddr_in6()
        let family: Int32
        if inet_pton(AF_INET, endpoint.host, &v4.sin_addr) == 1 {
            family = AF_INET
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = UInt16(truncatingIfNeeded: endpoint.port).bigEndian
        } else if inet_pton(AF_INET6, endpoint.host, &v6.sin6_addr) == 1 {
            family = AF_INET6
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = UInt16(truncatingIfNeeded: endpoint.port).bigEndian
        } else {
            throw .connect("not a numeric address: \(endpoint.host)")
        }
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .connect(String(cString: strerror(errno))) }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let rc: Int32
        if family == AF_INET {
            rc = withUnsafePointer(to: &v4) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        } else {
            rc = withUnsafePointer(to: &v6) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        }
        guard rc == 0 else {
            let why = String(cString: strerror(errno))
            close(fd)
            throw .connect("\(endpoint.host):\(endpoint.port): \(why)")
        }
        return fd
    }
}
