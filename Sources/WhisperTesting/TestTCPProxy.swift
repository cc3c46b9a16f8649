#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import Foundation
import Synchronization

/// A loopback TCP proxy in front of a real server (Redis) that can hold back one connection's
/// replies: once a client sends bytes containing `trigger` (say, one script's SHA-1), what the
/// server answers on that connection is forwarded only `holdSeconds` later. The server has
/// already done the work; only its answer is late, as on a loaded link. Other connections (a
/// node's subscriber) flow freely, so a test can order what a node hears.
public final class TestTCPProxy: Sendable {
    public let port: Int
    private let listener: Int32
    private let state = Mutex(State())

    private struct State {
        var fds: [Int32] = []
        var stopped = false
        /// How many connections are holding replies back right now.
        var holding = 0
    }

    public init(upstreamPort: Int, trigger: [UInt8], holdSeconds: Double) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestSocket.Failure.connect("socket") }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &addr) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(fd, address, length) == 0 && listen(fd, 64) == 0 && getsockname(fd, address, &length) == 0
            }
        }
        guard bound else {
            Glibc.close(fd)
            throw TestSocket.Failure.connect("proxy listen: \(String(cString: strerror(errno)))")
        }
        listener = fd
        port = Int(UInt16(bigEndian: addr.sin_port))
        let pattern = trigger
        Thread.detachNewThread { [self] in acceptLoop(upstreamPort: upstreamPort, trigger: pattern, holdSeconds: holdSeconds) }
    }

    /// Whether some connection is holding replies back now.
    public var isHolding: Bool { state.withLock { $0.holding > 0 } }

    /// Closes the listener and every proxied connection.
    public func stop() {
        let fds = state.withLock { state in
            state.stopped = true
            return state.fds
        }
        shutdown(listener, Int32(SHUT_RDWR))
        for fd in fds { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    deinit {
        stop()
        Glibc.close(listener)
        for fd in state.withLock({ $0.fds }) { Glibc.close(fd) }
    }

    private func acceptLoop(upstreamPort: Int, trigger: [UInt8], holdSeconds: Double) {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else {
                if errno == EINTR { continue }
                return
            }
            guard let upstream = try? Self.connect(port: upstreamPort) else {
                Glibc.close(client)
                continue
            }
            let admitted = state.withLock { state in
                guard !state.stopped else { return false }
                state.fds += [client, upstream]
                return true
            }
            guard admitted else {
                Glibc.close(client)
                Glibc.close(upstream)
                return
            }
            let heldUntil = Deadline()
            Thread.detachNewThread { [self] in
                // Client → server: watch for the trigger (across reads), and start the hold before
                // forwarding it, so the reply cannot slip through first.
                var tail: [UInt8] = []
                pump(from: client, to: upstream) { bytes in
                    let window = tail + bytes
                    if window.firstRange(of: trigger) != nil {
                        heldUntil.value.withLock { $0 = Date().timeIntervalSince1970 + holdSeconds }
                    }
                    tail = Array(window.suffix(max(trigger.count - 1, 0)))
                }
            }
            Thread.detachNewThread { [self] in
                pump(from: upstream, to: client) { _ in
                    let wait = heldUntil.value.withLock { $0 } - Date().timeIntervalSince1970
                    guard wait > 0 else { return }
                    state.withLock { $0.holding += 1 }
                    Thread.sleep(forTimeInterval: wait)
                    state.withLock { $0.holding -= 1 }
                }
            }
        }
    }

    /// Until when one connection's replies are held back (seconds since 1970).
    private final class Deadline: Sendable {
        let value = Mutex<Double>(0)
    }

    /// Copies `source` to `destination` until either end closes; `inspect` sees each chunk
    /// before it is forwarded. Then shuts both down, so the other direction ends too.
    private func pump(from source: Int32, to destination: Int32, inspect: ([UInt8]) -> Void) {
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        loop: while true {
            let count = buffer.withUnsafeMutableBytes { recv(source, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            let chunk = Array(buffer[0..<count])
            inspect(chunk)
            var sent = 0
            while sent < chunk.count {
                let n = chunk[sent...].withUnsafeBytes { send(destination, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { break loop }
                sent += n
            }
        }
        shutdown(source, Int32(SHUT_RDWR))
        shutdown(destination, Int32(SHUT_RDWR))
    }

    private static func connect(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestSocket.Failure.connect("socket") }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = UInt16(port).bigEndian
        inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr)
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else {
            Glibc.close(fd)
            throw TestSocket.Failure.connect(String(cString: strerror(errno)))
        }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        return fd
    }
}
