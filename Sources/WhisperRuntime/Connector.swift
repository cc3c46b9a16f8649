#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import CLinux

/// One outbound, non-blocking TCP connect on a loop, ending in a `Connection` — the client
/// half the runtime otherwise lacks (the load generator uses it to play many phones, the Redis
/// client to reach Redis).
///
/// `socket` → optional `bind` to a source address → `connect` (EINPROGRESS) → wait for
/// writability → `SO_ERROR` → with `tls`, the TLS handshake, certificate verified, before the
/// `Connection` exists. Binding a source address lets one process spread its sockets
/// over several loopback addresses and so exceed one address's ephemeral port range; with
/// `IP_BIND_ADDRESS_NO_PORT` the port is chosen at `connect`, where the kernel may reuse it
/// towards other destinations.
///
/// The completion runs exactly once, on the loop's thread, and never from inside
/// `connect(...)` itself (a synchronous failure is reported at the end of the iteration), so
/// callers need not guard against re-entrance.
public final class Connector: IOHandler {
    public typealias Completion = (Result<Connection, TransportError>) -> Void

    private let loop: EventLoop
    private let fd: Int32
    private let remote: SocketAddress
    private let tls: ClientTLS?
    private let limits: ConnectionLimits
    private var completion: Completion?
    private var registration: IORegistration?
    private var timer: TimerID?
    /// Set once TCP is up and the TLS handshake is under way.
    private var handshaking: TLSTransport?

    private init(loop: EventLoop, fd: Int32, remote: SocketAddress, tls: ClientTLS?, limits: ConnectionLimits,
                 completion: @escaping Completion) {
        self.loop = loop
        self.fd = fd
        self.remote = remote
        self.tls = tls
        self.limits = limits
        self.completion = completion
    }

    /// Starts connecting to `remote`, from `local` when given (its port is normally 0), over TLS
    /// when `tls` is given; `timeoutNanoseconds` bounds the TCP connect and the handshake.
    /// `keepAlive` sets SO_KEEPALIVE, so a long-quiet connection notices a peer that vanished.
    /// Loop thread only.
    public static func connect(loop: EventLoop, to remote: SocketAddress, from local: SocketAddress? = nil,
                               tls: ClientTLS? = nil, keepAlive: Bool = false,
                               limits: ConnectionLimits = ConnectionLimits(), timeoutNanoseconds: UInt64,
                               completion: @escaping Completion) {
        let fd = clinux_socket_stream(remote.family)
        guard fd >= 0 else {
            let error = SystemError.last("socket")
            loop.deferToEndOfIteration { completion(.failure(.system(error))) }
            return
        }
        let connector = Connector(loop: loop, fd: fd, remote: remote, tls: tls, limits: limits, completion: completion)
        do {
            try connector.begin(local: local, keepAlive: keepAlive, timeoutNanoseconds: timeoutNanoseconds)
        } catch {
            loop.deferToEndOfIteration { connector.fail(.system(error)) }
        }
    }

    private func begin(local: SocketAddress?, keepAlive: Bool, timeoutNanoseconds: UInt64) throws(SystemError) {
        // Small request/response frames: never wait for Nagle.
        try Syscall.setOption(fd, Int32(IPPROTO_TCP), TCP_NODELAY, 1, "TCP_NODELAY")
        if keepAlive { try Syscall.setOption(fd, SOL_SOCKET, SO_KEEPALIVE, 1, "SO_KEEPALIVE") }
        if let local {
            // Best effort: without it the port is picked at bind time, which still works.
            _ = try? Syscall.setOption(fd, Int32(IPPROTO_IP), IP_BIND_ADDRESS_NO_PORT, 1, "IP_BIND_ADDRESS_NO_PORT")
            let bound = local.withSockaddr { Glibc.bind(fd, $0, $1) }
            guard bound == 0 else { throw SystemError.last("bind(\(local))") }
        }
        let result = remote.withSockaddr { Glibc.connect(fd, $0, $1) }
        let err = Glibc.errno
        // EINTR: the connect goes on asynchronously (POSIX), exactly like EINPROGRESS. Loopback
        // may complete at once: the socket is writable then, and epoll reports it from the loop.
        guard result == 0 || err == EINPROGRESS || err == EINTR else {
            throw SystemError("connect(\(remote))", errno: err)
        }
        registration = try loop.register(fd, interest: .write, handler: self)
        timer = loop.schedule(afterNanoseconds: timeoutNanoseconds) { [weak self] in
            self?.timer = nil
            self?.fail(.system(SystemError("connect(\(self?.remote.description ?? "?"))", errno: ETIMEDOUT)))
        }
    }

    public func ioReady(_ events: IOEvents) {
        finish()
    }

    /// Writable (or hung up): `SO_ERROR` says whether the TCP handshake succeeded.
    private func finish() {
        guard completion != nil else { return }
        if let handshaking { return handshake(handshaking) }
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0 else {
            return fail(.system(SystemError.last("getsockopt(SO_ERROR)")))
        }
        guard error == 0 else { return fail(.system(SystemError("connect(\(remote))", errno: error))) }
        guard let tls else { return establish(PlainTransport(fd: fd)) }
        guard let transport = TLSTransport(client: tls, fd: fd) else {
            return fail(.tls("cannot set up TLS for \(tls.serverName): \(TLSContext.lastError())"))
        }
        handshaking = transport
        handshake(transport)
    }

    private func handshake(_ transport: TLSTransport) {
        do {
            switch try transport.handshake() {
            case .done:
                establish(transport)
            case .wouldBlock:
                guard let registration else { return }
                do {
                    try loop.update(registration, interest: transport.needsWritableToRead ? .write : .read)
                } catch {
                    fail(.system(error))
                }
            }
        } catch {
            fail(error)
        }
    }

    private func establish(_ transport: Transport) {
        release()
        let connection = Connection(loop: loop, fd: fd, peer: remote, transport: transport, isTLS: tls != nil, limits: limits)
        do {
            try connection.start()
        } catch {
            // `close` also closes the descriptor, which the connection now owns.
            connection.close(reason: .error(error.description))
            return report(.failure(.system(error)))
        }
        report(.success(connection))
    }

    private func fail(_ error: TransportError) {
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

    private func report(_ result: Result<Connection, TransportError>) {
        let completion = self.completion
        self.completion = nil
        completion?(result)
    }
}
