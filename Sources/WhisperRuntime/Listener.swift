#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import CLinux

/// A listening socket registered with one loop. Every loop gets its own listener on the
/// same port (SO_REUSEPORT), so the kernel spreads accepts over the loops and no accept
/// ever crosses a thread.
public final class Listener: IOHandler {
    public let loop: EventLoop
    public let address: SocketAddress
    private let fd: Int32
    private let tls: TLSContext?
    private let limits: ConnectionLimits
    private let peers: PeerConnectionTable?
    private let proxyProtocol: ProxyProtocolPolicy?
    private let onAccept: (Connection) -> Void
    private var registration: IORegistration?
    private var closed = false

    /// Binds and listens; call on any thread, then `start()` on the loop. With `peers`, a
    /// connection from an address that already holds its limit is closed right after accept. With
    /// `proxyProtocol`, a connection from a trusted balancer reads its PROXY v2 header first and
    /// is counted under the client address the header names.
    public init(loop: EventLoop, address: SocketAddress, tls: TLSContext?, limits: ConnectionLimits,
                peers: PeerConnectionTable? = nil, proxyProtocol: ProxyProtocolPolicy? = nil,
                onAccept: @escaping (Connection) -> Void) throws(SystemError) {
        let fd = clinux_socket_stream(address.family)
        guard fd >= 0 else { throw SystemError.last("socket") }
        do throws(SystemError) {
            try Syscall.setOption(fd, SOL_SOCKET, SO_REUSEADDR, 1, "SO_REUSEADDR")
            try Syscall.setOption(fd, SOL_SOCKET, SO_REUSEPORT, 1, "SO_REUSEPORT")
            let bound = address.withSockaddr { Glibc.bind(fd, $0, $1) }
            guard bound == 0 else { throw SystemError.last("bind(\(address))") }
            guard Glibc.listen(fd, 4096) == 0 else { throw SystemError.last("listen") }
        } catch {
            Syscall.close(fd)
            throw error
        }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.fd = fd
        self.loop = loop
        self.address = SocketAddress(storage: storage)
        self.tls = tls
        self.limits = limits
        self.peers = peers
        self.proxyProtocol = proxyProtocol
        self.onAccept = onAccept
    }

    /// Registers with the loop. Loop thread only.
    public func start() throws(SystemError) {
        registration = try loop.register(fd, interest: .read, handler: self)
    }

    /// Stops accepting; established connections are unaffected. Loop thread only.
    public func close() {
        guard !closed else { return }
        closed = true
        if let registration { loop.deregister(registration) }
        registration = nil
        Syscall.close(fd)
    }

    public func ioReady(_ events: IOEvents) {
        // Bounded per event so a connection storm cannot starve established peers.
        for _ in 0..<64 {
            guard !closed else { return }
            let accepted: IOResult<(Int32, SocketAddress)>
            do {
                accepted = try Syscall.accept(fd)
            } catch {
                // EMFILE/ENFILE and friends: the pending connection stays queued and a
                // level-triggered loop would spin on it, so back off briefly.
                pauseAccepting()
                return
            }
            guard case .done(let (clientFD, peer)) = accepted else { return }
            // A balancer's connection is counted once its header names the client (`Connection`).
            let proxyHeader = proxyProtocol.flatMap { policy in
                policy.trusts(peer) ? ProxyHeaderDecoder(maxHeaderBytes: policy.maxHeaderBytes) : nil
            }
            // Before TLS or any buffer is set up: a refused connection costs one accept and one close.
            if proxyHeader == nil, let peers, !peers.admit(peer, now: loop.now) {
                Syscall.close(clientFD)
                continue
            }
            _ = try? Syscall.setOption(clientFD, Int32(IPPROTO_TCP), TCP_NODELAY, 1, "TCP_NODELAY")
            let transport: Transport
            if let tls {
                guard let t = TLSTransport(context: tls, fd: clientFD) else {
                    if proxyHeader == nil { peers?.release(peer) }
                    Syscall.close(clientFD)
                    continue
                }
                transport = t
            } else {
                transport = PlainTransport(fd: clientFD)
            }
            let connection = Connection(loop: loop, fd: clientFD, peer: peer, transport: transport,
                                        isTLS: tls != nil, limits: limits, peers: peers, proxyHeader: proxyHeader)
            do {
                try connection.start()
            } catch {
                connection.close(reason: .error(error.description))
                continue
            }
            onAccept(connection)
        }
    }

    private func pauseAccepting() {
        guard let registration else { return }
        try? loop.update(registration, interest: [])
        loop.schedule(afterNanoseconds: 100_000_000) { [weak self] in
            guard let self, !self.closed, let registration = self.registration else { return }
            try? self.loop.update(registration, interest: .read)
        }
    }
}
