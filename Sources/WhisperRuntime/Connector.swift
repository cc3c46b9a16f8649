#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import CLinux

/// One outbound, non-blocking TCP connect on a loop, ending in a `Connection` — the client
/// half the runtime otherwise lacks (the load generator uses it to play many phones).
///
/// `socket` → optional `bind` to a source address → `connect` (EINPROGRESS) → wait for
/// writability → `SO_ERROR`. Binding a source address lets one process spread its sockets
/// over several loopback addresses and so exceed one address's ephemeral port range; with
/// `IP_BIND_ADDRESS_NO_PORT` the port is chosen at `connect`, where the kernel may reuse it
/// towards other destinations.
///
/// The completion runs exactly once, on the loop's thread, and never from inside
/// `connect(...)` itself (a synchronous failure is reported at the end of the iteration), so
/// callers need not guard against re-entrance.
public final class Connector: IOHandler {
    public typealias Completion = (Result<Connection, SystemError>) -> Void

    private let loop: EventLoop
    private let fd: Int32
    private let remote: SocketAddress
    private let limits: ConnectionLimits
    private var completion: Completion?
    private var registration: IORegistration?
    private var timer: TimerID?

    private init(loop: EventLoop, fd: Int32, remote: SocketAddress, limits: ConnectionLimits, completion: @escaping Completion) {
        self.loop = loop
        self.fd = fd
        self.remote = remote
        self.limits = limits
        self.completion = completion
    }

    /// Starts connecting to `remote`, from `local` when given (its port is normally 0).
    /// Loop thread only.
    public static func connect(loop: EventLoop, to remote: SocketAddress, from local: SocketAddress? = nil,
                               limits: ConnectionLimits = ConnectionLimits(), timeoutNanoseconds: UInt64,
                               completion: @escaping Completion) {
        let fd = clinux_socket_stream(remote.family)
        guard fd >= 0 else {
            let error = SystemError.last("socket")
            loop.deferToEndOfIteration { completion(.failure(error)) }
            return
        }
        let connector = Connector(loop: loop, fd: fd, remote: remote, limits: limits, completion: completion)
        do {
            try connector.begin(local: local, timeoutNanoseconds: timeoutNanoseconds)
        } catch {
            loop.deferToEndOfIteration { connector.fail(error) }
        }
    }

    private func begin(local: SocketAddress?, timeoutNanoseconds: UInt64) throws(SystemError) {
        // Small request/response frames: never wait for Nagle.
        try Syscall.setOption(fd, Int32(IPPROTO_TCP), TCP_NODELAY, 1, "TCP_NODELAY")
        if let local {
            // Best effort: without it the port is picked at bind time, which still works.
            _ = try? Syscall.setOption(fd, Int32(IPPROTO_IP), IP_BIND_ADDRESS_NO_PORT, 1, "IP_BIND_ADDRESS_NO_PORT")
            let bound = local.withSockaddr { Glibc.bind(fd, $0, $1) }
            guard bound == 0 else { throw SystemError.last("bind(\(local))") }
        }
        let result = remote.withSockaddr { Glibc.connect(fd, $0, $1) }
        if result == 0 {
            // Loopback may complete at once; still report from the loop, not from here.
            loop.deferToEndOfIteration { [self] in finish() }
            return
        }
        let err = Glibc.errno
        // EINTR: the connect goes on asynchronously (POSIX), exactly like EINPROGRESS.
        guard err == EINPROGRESS || err == EINTR else { throw SystemError("connect(\(remote))", errno: err) }
        registration = try loop.register(fd, interest: .write, handler: self)
        timer = loop.schedule(afterNanoseconds: timeoutNanoseconds) { [weak self] in
            self?.timer = nil
            self?.fail(SystemError("connect(\(self?.remote.description ?? "?"))", errno: ETIMEDOUT))
        }
    }

    public func ioReady(_ events: IOEvents) {
        finish()
    }

    /// Writable (or hung up): `SO_ERROR` says whether the handshake succeeded.
    private func finish() {
        guard completion != nil else { return }
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0 else {
            return fail(SystemError.last("getsockopt(SO_ERROR)"))
        }
        guard error == 0 else { return fail(SystemError("connect(\(remote))", errno: error)) }
        release()
        let connection = Connection(loop: loop, fd: fd, peer: remote, transport: PlainTransport(fd: fd),
                                    isTLS: false, limits: limits)
        do {
            try connection.start()
        } catch {
            // `close` also closes the descriptor, which the connection now owns.
            connection.close(reason: .error(error.description))
            return report(.failure(error))
        }
        report(.success(connection))
    }

    private func fail(_ error: SystemError) {
        guard completion != nil else { return }
        release()
        Syscall.close(fd)
        report(.failure(error))
    }

    /// Drops the epoll registration and the timer; the descriptor stays open.
    private func release() {
        if let registration { loop.deregister(registration) }
        registration = nil
        if let timer { loop.cancel(timer) }
        timer = nil
    }

    private func report(_ result: Result<Connection, SystemError>) {
        let completion = self.completion
        self.completion = nil
        completion?(result)
    }
}
