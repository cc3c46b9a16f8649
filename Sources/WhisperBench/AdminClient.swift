#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// A blocking `GET` against the server's admin listener, for `/metrics` at the edges of the
/// measurement window. Runs on the orchestrating thread, never on a loop; a few milliseconds
/// twice per run, so a plain blocking socket with timeouts is the simplest correct thing.
struct AdminClient: Sendable {
    let endpoint: AdminEndpoint
    var timeoutSeconds = 5

    enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        case connect(String)
        case io(String)
        case status(Int)
        case malformed

        var description: String {
            switch self {
            case .connect(let why): return "admin connect: \(why)"
            case .io(let why): return "admin read: \(why)"
            case .status(let code): return "admin status \(code)"
            case .malformed: return "admin response malformed"
            }
        }
    }

    /// The body of `GET path` with `Connection: close`, read to EOF.
    func get(_ path: String) throws(Failure) -> String {
        let fd = try connect()
        defer { close(fd) }
        let request = Array("GET \(path) HTTP/1.1\r\nHost: \(endpoint.host)\r\nConnection: close\r\n\r\n".utf8)
        var sent = 0
        while sent < request.count {
            let n = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
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
            guard response.count < 64 << 20 else { throw .malformed }
        }
        return try Self.body(of: response)
    }

    /// Splits a `Connection: close` response; only 200 is accepted. Honours Content-Length
    /// when present, else takes everything after the head.
    static func body(of response: [UInt8]) throws(Failure) -> String {
        guard let end = ClientHandshake.headEnd(in: response) else { throw .malformed }
        let head = String(decoding: response[..<end], as: UTF8.self).split(separator: "\r\n")
        guard let statusLine = head.first else { throw .malformed }
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else { throw .malformed }
        guard status == 200 else { throw .status(status) }
        var body = response[end...]
        for line in head.dropFirst() where line.lowercased().hasPrefix("content-length:") {
            guard let length = Int(String(line.dropFirst("content-length:".count)).trimmingSpaces()),
                  length <= body.count else { throw .malformed }
            body = body.prefix(length)
        }
        return String(decoding: body, as: UTF8.self)
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
