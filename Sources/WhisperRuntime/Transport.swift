#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// The byte pipe under a connection: plain TCP or TLS. Reads and writes are non-blocking;
/// `.done(0)` from `read` means the peer closed.
protocol Transport: AnyObject {
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(TransportError) -> IOResult<Int>
    /// Writes as much of `bytes` as the socket takes.
    func write(_ bytes: UnsafeRawBufferPointer) throws(TransportError) -> IOResult<Int>
    /// TLS may need the socket writable before a read can make progress (and vice versa).
    var needsWritableToRead: Bool { get }
    var needsReadableToWrite: Bool { get }
    /// A read that returned less than the buffer has emptied the socket, so another read
    /// would only get EAGAIN (level-triggered epoll reports anything that arrives later).
    /// Not so for TLS, where decrypted bytes can wait inside the library.
    var shortReadDrains: Bool { get }
    func shutdown()
}

public enum TransportError: Error, Sendable, CustomStringConvertible {
    case system(SystemError)
    case tls(String)

    public var description: String {
        switch self {
        case .system(let error): return error.description
        case .tls(let reason): return "tls: \(reason)"
        }
    }
}

/// Plain TCP: `read(2)` and `send(2)`.
final class PlainTransport: Transport {
    private let fd: Int32
    init(fd: Int32) { self.fd = fd }
    var shortReadDrains: Bool { true }

    var needsWritableToRead: Bool { false }
    var needsReadableToWrite: Bool { false }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(TransportError) -> IOResult<Int> {
        do { return try Syscall.read(fd, buffer) } catch { throw .system(error) }
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws(TransportError) -> IOResult<Int> {
        do { return try Syscall.write(fd, bytes) } catch { throw .system(error) }
    }

    func shutdown() {}
}
