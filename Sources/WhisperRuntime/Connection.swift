#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import Synchronization

/// Receives a connection's bytes and its end. Called on the connection's loop thread.
public protocol ConnectionDelegate: AnyObject {
    /// New bytes; the buffer is the loop's shared read buffer, valid only during the call.
    func connection(_ connection: Connection, didRead bytes: UnsafeRawBufferPointer)
    /// The connection is closed (by either side); called exactly once.
    func connectionDidClose(_ connection: Connection, reason: CloseReason)
}

/// Why a connection ended; logged and counted, never shown to the peer.
public enum CloseReason: Sendable, Equatable {
    case peerClosed
    case closedByServer
    case slowConsumer
    /// A trusted balancer's connection whose PROXY v2 header was bad, cut short or late.
    case proxyHeader(ProxyHeaderError)
    case error(String)
}

public struct ConnectionLimits: Sendable {
    /// Output queued past this is a slow consumer: the connection is dropped.
    public var maxOutputBytes: Int
    /// At most this much is read per readiness event, so one busy peer cannot starve others.
    public var maxReadPerEvent: Int

    public init(maxOutputBytes: Int = 4 << 20, maxReadPerEvent: Int = 256 << 10) {
        self.maxOutputBytes = maxOutputBytes
        self.maxReadPerEvent = maxReadPerEvent
    }
}

/// One accepted socket, owned by one loop. Writes are queued and flushed once per loop
/// iteration (before the loop sleeps), so a burst of frames to one peer leaves in one
/// syscall; `EPOLLOUT` is armed only while bytes remain that the kernel would not take.
public final class Connection: IOHandler {
    public let loop: EventLoop
    public let id: UInt64
    /// The client: the socket's peer, or — on a connection from a trusted balancer — the source
    /// its PROXY header names, from the moment the header is complete (before any byte reaches
    /// the delegate).
    public private(set) var peer: SocketAddress
    public let isTLS: Bool
    public var delegate: ConnectionDelegate?

    private let fd: Int32
    private let transport: Transport
    public let limits: ConnectionLimits
    /// The per-address count this connection is part of; released once, on close.
    private var peers: PeerConnectionTable?
    /// The count to join once the PROXY header has named the client.
    private var peersAfterHeader: PeerConnectionTable?
    /// Present until the PROXY header of a trusted balancer's connection is complete.
    private var proxyHeader: ProxyHeaderDecoder?
    private var registration: IORegistration?
    private var interest: IOEvents = .read
    private var output = OutputBuffer()
    private var flushScheduled = false
    private var closeAfterFlush = false
    private var readPaused = false
    public private(set) var isClosed = false

    private static let nextID = Atomic<UInt64>(1)

    /// With `proxyHeader`, the connection first reads that header and only then joins `peers`
    /// under the client address it names; without, `peers` has already counted it.
    init(loop: EventLoop, fd: Int32, peer: SocketAddress, transport: Transport, isTLS: Bool, limits: ConnectionLimits,
         peers: PeerConnectionTable? = nil, proxyHeader: ProxyHeaderDecoder? = nil) {
        self.loop = loop
        self.fd = fd
        self.peer = peer
        self.transport = transport
        self.isTLS = isTLS
        self.limits = limits
        self.proxyHeader = proxyHeader
        if proxyHeader == nil { self.peers = peers } else { self.peersAfterHeader = peers }
        self.id = Connection.nextID.add(1, ordering: .relaxed).oldValue
    }

    func start() throws(SystemError) {
        registration = try loop.register(fd, interest: interest, handler: self)
    }

    /// True until a trusted balancer's PROXY header is complete; no byte reaches the delegate before.
    public var isAwaitingProxyHeader: Bool { proxyHeader != nil }

    /// Bytes waiting for the kernel.
    public var pendingOutputBytes: Int { output.pendingCount }

    // MARK: Writing

    /// Queues `bytes`; they leave before the loop next sleeps. Past the output cap the
    /// connection is closed as a slow consumer and false is returned.
    @discardableResult
    public func write(_ bytes: [UInt8]) -> Bool {
        guard admits(bytes.count) else { return false }
        output.append(bytes)
        scheduleFlush()
        return true
    }

    /// `write`, for bytes that are part of a larger buffer (copied once, into the output).
    @discardableResult
    public func write(_ bytes: ArraySlice<UInt8>) -> Bool {
        guard admits(bytes.count) else { return false }
        output.append(bytes)
        scheduleFlush()
        return true
    }

    private func admits(_ count: Int) -> Bool {
        guard !isClosed, !closeAfterFlush else { return false }
        if output.pendingCount + count > limits.maxOutputBytes {
            close(reason: .slowConsumer)
            return false
        }
        return true
    }

    /// Keep the output buffer's storage between flushes (up to 1 MiB): for the few
    /// connections that write every iteration, such as a node's Redis links — not for clients,
    /// whose idle sockets then hold no output memory.
    public var keepsOutputCapacity: Bool {
        get { output.keepsCapacity }
        set { output.keepsCapacity = newValue }
    }

    /// Closes once everything queued has been written (e.g. after a close frame or an
    /// HTTP response with `Connection: close`).
    public func closeWhenFlushed() {
        guard !isClosed else { return }
        closeAfterFlush = true
        if output.isEmpty { close(reason: .closedByServer) } else { scheduleFlush() }
    }

    /// Stops reading from the socket (read-side back-pressure) until `resumeReading()`.
    public func pauseReading() {
        readPaused = true
        updateInterest()
    }

    public func resumeReading() {
        readPaused = false
        updateInterest()
    }

    private func scheduleFlush() {
        guard !flushScheduled else { return }
        flushScheduled = true
        loop.enqueueFlush(self)
    }

    /// Called by the loop before it sleeps.
    func flush() {
        flushScheduled = false
        guard !isClosed else { return }
        do {
            while !output.isEmpty {
                guard case .done = try output.drain(transport.write) else { break }
            }
        } catch {
            close(reason: .error(error.description))
            return
        }
        if output.isEmpty, closeAfterFlush {
            close(reason: .closedByServer)
            return
        }
        updateInterest()
    }

    // MARK: Readiness

    public func ioReady(_ events: IOEvents) {
        guard !isClosed else { return }
        let writable = events.contains(.write)
        let readable = events.contains(.read) || events.contains(.hangup)
        if writable || (readable && transport.needsReadableToWrite) { flush() }
        if (readable || (writable && transport.needsWritableToRead)) && !readPaused { readAvailable() }
    }

    private func readAvailable() {
        if proxyHeader != nil, !readProxyHeader() { return }
        var total = 0
        let buffer = loop.readBuffer
        while !isClosed, !readPaused, total < limits.maxReadPerEvent {
            let result: IOResult<Int>
            do {
                result = try transport.read(into: buffer)
            } catch {
                close(reason: .error(error.description))
                return
            }
            switch result {
            case .wouldBlock:
                updateInterest()
                return
            case .done(0):
                close(reason: .peerClosed)
                return
            case .done(let n):
                total += n
                delegate?.connection(self, didRead: UnsafeRawBufferPointer(rebasing: buffer[..<n]))
                // Most reads of a busy relay are one small frame: skip the read that would
                // only say EAGAIN (it was a third of all syscalls at 1,000 messages/s).
                // (Interest is left alone: a plain socket's does not depend on reads, and
                // replies queued for the end-of-iteration flush must not arm EPOLLOUT.)
                if n < buffer.count, transport.shortReadDrains { return }
            }
        }
    }

    /// Reads the PROXY header straight from the socket (it precedes TLS), asking for no more than
    /// the header still needs so the stream after it stays in the kernel for the transport.
    /// True once the header is complete and the client admitted; false while more is needed
    /// or after closing.
    private func readProxyHeader() -> Bool {
        let buffer = loop.readBuffer
        while var decoder = proxyHeader {
            let wanted = UnsafeMutableRawBufferPointer(rebasing: buffer[..<min(decoder.bytesWanted, buffer.count)])
            let result: IOResult<Int>
            do {
                result = try Syscall.read(fd, wanted)
            } catch {
                close(reason: .proxyHeader(.truncated))
                return false
            }
            switch result {
            case .wouldBlock:
                return false
            case .done(0):
                close(reason: .proxyHeader(.truncated))
                return false
            case .done(let n):
                proxyHeader = nil  // so `decoder`'s buffer is not copied on write
                do {
                    switch try decoder.feed(UnsafeRawBufferPointer(rebasing: wanted[..<n])) {
                    case .needMoreData:
                        proxyHeader = decoder
                    case .complete(let header, _):
                        if let source = header.source { peer = source }
                        return admitAfterHeader()
                    }
                } catch {
                    close(reason: .proxyHeader(error))
                    return false
                }
            }
        }
        return true
    }

    private func admitAfterHeader() -> Bool {
        guard let table = peersAfterHeader else { return true }
        peersAfterHeader = nil
        guard table.admit(peer, now: loop.now) else {
            close(reason: .closedByServer)
            return false
        }
        peers = table
        return true
    }

    private func updateInterest() {
        guard !isClosed, let registration else { return }
        var wanted: IOEvents = []
        if !readPaused { wanted.insert(.read) }
        if !output.isEmpty || transport.needsWritableToRead { wanted.insert(.write) }
        if transport.needsReadableToWrite { wanted.insert(.read) }
        guard wanted != interest else { return }
        interest = wanted
        do { try loop.update(registration, interest: wanted) } catch { close(reason: .error(error.description)) }
    }

    // MARK: Closing

    /// Closes now, dropping unsent output. The delegate hears about it at the end of the
    /// loop iteration, never from inside its own callback.
    public func close(reason: CloseReason = .closedByServer) {
        guard !isClosed else { return }
        isClosed = true
        if let registration { loop.deregister(registration) }
        registration = nil
        // The address's slot is free before the peer can see the close: a client that
        // reconnects the moment it reads EOF is not refused for the connection it just lost.
        peers?.release(peer)
        transport.shutdown()
        Syscall.close(fd)
        output.removeAll()
        loop.deferToEndOfIteration { [self] in
            let delegate = self.delegate
            self.delegate = nil
            delegate?.connectionDidClose(self, reason: reason)
        }
    }
}
