#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import COpenSSL
import Foundation

/// A blocking TCP (optionally TLS) client for tests: the server is driven over a real
/// socket exactly as a phone or an HTTP client would. Every read has a timeout so a broken
/// server fails a test instead of hanging it.
public final class TestSocket {
    public enum Failure: Error, CustomStringConvertible {
        case connect(String), io(String), timeout, closed
        public var description: String {
            switch self {
            case .connect(let s): return "connect: \(s)"
            case .io(let s): return "io: \(s)"
            case .timeout: return "timed out waiting for the server"
            case .closed: return "server closed the connection"
            }
        }
    }

    /// -1 once closed: an fd number is closed exactly once, because after that the kernel may
    /// hand the same number to another socket of this process (another test's, or the
    /// in-process server's), which a second close would silently take away.
    public private(set) var fd: Int32
    private var ssl: OpaquePointer?
    private var sslContext: OpaquePointer?
    /// Bytes received but not yet consumed.
    public var buffered: [UInt8] = []

    /// `source` binds the client end to that local IPv4 address first (another loopback address,
    /// 127.0.0.2 …, to look like another client); `preamble` is sent in the clear right after
    /// connecting, before any TLS handshake (a PROXY protocol header).
    public init(host: String = "127.0.0.1", port: Int, source: String? = nil, preamble: [UInt8] = [], tls: Bool = false,
                timeoutSeconds: Int = 10) throws {
        // Close-on-exec: a process another test starts meanwhile (a private PostgreSQL, the
        // CLI) must not inherit the socket, or `close()` sends no FIN while it lives.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure.connect("socket") }
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            inet_pton(AF_INET, source, &local.sin_addr)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else {
                let message = String(cString: strerror(errno))
                Glibc.close(fd)
                throw Failure.connect("bind(\(source)): \(message)")
            }
        }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = UInt16(port).bigEndian
        inet_pton(AF_INET, host, &addr.sin_addr)
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard rc == 0 else {
            let message = String(cString: strerror(errno))
            Glibc.close(fd)
            throw Failure.connect(message)
        }
        var tv = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        self.fd = fd
        if !preamble.isEmpty { try send(preamble) }
        if tls {
            guard let ctx = SSL_CTX_new(TLS_client_method()), let ssl = SSL_new(ctx) else {
                throw Failure.connect("SSL_new")
            }
            sslContext = ctx
            self.ssl = ssl
            SSL_set_fd(ssl, fd)
            guard SSL_connect(ssl) == 1 else { throw Failure.connect("TLS handshake failed") }
        }
    }

    /// A TCP port on 127.0.0.1 that nobody listens on right now (bound to port 0, read back,
    /// released) — for a server the test starts on it. A test that needs a port to stay
    /// refusing uses `RefusingPort`.
    public static func freePort() throws -> Int { try RefusingPort().port }

    /// A port on 127.0.0.1 that refuses connections for as long as this value lives: bound, never
    /// listened on, so a connect gets a reset and no other test can take the port meanwhile (a
    /// `freePort()` may be handed to a parallel test's listener before a "refused" test connects).
    public final class RefusingPort: @unchecked Sendable {
        public let port: Int
        private let fd: Int32

        public init() throws {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { throw Failure.io("socket failed (errno \(errno))") }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa -> Int32 in
                    guard bind(fd, sa, length) == 0 else { return -1 }
                    return getsockname(fd, sa, &length)
                }
            }
            guard bound == 0 else {
                Glibc.close(fd)
                throw Failure.io("bind/getsockname failed (errno \(errno))")
            }
            self.fd = fd
            port = Int(UInt16(bigEndian: address.sin_port))
        }

        deinit { Glibc.close(fd) }
    }

    deinit { close() }

    public func close() {
        if let ssl { SSL_free(ssl) }
        if let sslContext { SSL_CTX_free(sslContext) }
        ssl = nil
        sslContext = nil
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    public func send(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { raw -> Int in
                if let ssl { return Int(SSL_write(ssl, raw.baseAddress, Int32(raw.count))) }
                return Glibc.send(fd, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL))
            }
            if n <= 0 { throw Failure.io("send failed (errno \(errno))") }
            sent += n
        }
    }

    public func send(_ text: String) throws { try send(Array(text.utf8)) }

    /// Reads whatever arrives next into `buffered`; throws `.closed` at EOF.
    @discardableResult
    public func receiveMore() throws -> Int {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let n = chunk.withUnsafeMutableBytes { raw -> Int in
            if let ssl { return Int(SSL_read(ssl, raw.baseAddress, Int32(raw.count))) }
            return Glibc.recv(fd, raw.baseAddress, raw.count, 0)
        }
        if n == 0 { throw Failure.closed }
        if n < 0 {
            if errno == EAGAIN || errno == EWOULDBLOCK { throw Failure.timeout }
            if errno == ECONNRESET { throw Failure.closed }
            throw Failure.io("recv failed (errno \(errno))")
        }
        buffered.append(contentsOf: chunk[..<n])
        return n
    }

    /// Reads until `count` bytes are buffered and returns them.
    public func receive(exactly count: Int) throws -> [UInt8] {
        while buffered.count < count { try receiveMore() }
        let out = Array(buffered[..<count])
        buffered.removeFirst(count)
        return out
    }

    /// Reads until the peer closes; returns everything buffered.
    public func receiveUntilClosed() throws -> [UInt8] {
        while true {
            do { try receiveMore() } catch Failure.closed { break }
        }
        let out = buffered
        buffered = []
        return out
    }

    /// True when the server has closed (EOF or reset) within the socket timeout.
    public func waitForClose() -> Bool {
        while true {
            do { try receiveMore() } catch Failure.closed { return true } catch { return false }
        }
    }
}
