#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import Foundation
import Synchronization

/// A loopback TCP proxy in front of a real server (Redis) that can hold back one connection's
/// replies: once armed, the first client bytes containing `trigger` (say, one script's SHA-1)
/// make that connection's replies wait until `release()`. The server has already done the work;
/// only its answer is late, as on a loaded link. Other connections (a node's subscriber) flow
/// freely, so a test can order what a node hears — and, holding until told, it does not depend
/// on how promptly a loaded test machine runs the test.
public final class TestTCPProxy: Sendable {
    public let port: Int
    private let listener: Int32
    private let state = Mutex(State())

    private struct State {
        var fds: [Int32] = []
        var stopped = false
        var armed = false
        /// The connection whose replies wait, from the trigger until `release()`.
        var holding: Int?
        var connections = 0
    }

    public init(upstreamPort: Int, trigger: [UInt8]) throws {
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
        Thread.detachNewThread { [self] in acceptLoop(upstreamPort: upstreamPort, trigger: trigger) }
    }

    /// The next trigger starts a hold.
    public func arm() { state.withLock { $0.armed = true } }

    /// Whether a connection's replies are held now (from its trigger until `release()`).
    public var isHolding: Bool { state.withLock { $0.holding != nil } }

    /// The held replies go on.
    public func release() { state.withLock { $0.holding = nil } }

    /// Closes the listener and every proxied connection.
    public func stop() {
        let fds = state.withLock { state in
            state.stopped = true
            state.holding = nil
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

    private func acceptLoop(upstreamPort: Int, trigger: [UInt8]) {
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
            let id: Int? = state.withLock { state in
                guard !state.stopped else { return nil }
                state.fds += [client, upstream]
                state.connections += 1
                return state.connections
            }
            guard let id else {
                Glibc.close(client)
                Glibc.close(upstream)
                return
            }
            Thread.detachNewThread { [self] in
                // Client → server: the hold starts before the trigger is forwarded, so its reply
                // cannot slip through first. The trigger may straddle two reads.
                var tail: [UInt8] = []
                pump(from: client, to: upstream) { bytes in
                    let window = tail + bytes
                    if window.firstRange(of: trigger) != nil {
                        state.withLock { state in
                            if state.armed { (state.armed, state.holding) = (false, id) }
                        }
                    }
                    tail = Array(window.suffix(max(trigger.count - 1, 0)))
                }
            }
            Thread.detachNewThread { [self] in
                pump(from: upstream, to: client) { _ in
                    while state.withLock({ $0.holding == id }) { Thread.sleep(forTimeInterval: 0.005) }
                }
            }
        }
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
