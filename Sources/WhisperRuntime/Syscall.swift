#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import CLinux

/// Every socket syscall the runtime makes, wrapped exactly once: EINTR retried, EAGAIN
/// returned as `.wouldBlock`, any other failure thrown with the call's name and errno.
enum Syscall {
    @inline(__always)
    private static func retrying<T: BinaryInteger>(_ call: String, _ body: () -> T) throws(SystemError) -> IOResult<T> {
        while true {
            let result = body()
            if result >= 0 { return .done(result) }
            let err = Glibc.errno
            switch err {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            default: throw SystemError(call, errno: err)
            }
        }
    }

    static func read(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> IOResult<Int> {
        try retrying("read") { Glibc.read(fd, buffer.baseAddress, buffer.count) }
    }

    /// MSG_NOSIGNAL: a peer that vanished yields EPIPE instead of killing the process.
    static func write(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) throws(SystemError) -> IOResult<Int> {
        try retrying("send") { Glibc.send(fd, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL)) }
    }

    static func accept(_ fd: Int32) throws(SystemError) -> IOResult<(Int32, SocketAddress)> {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = try retrying("accept4") {
            withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { clinux_accept(fd, $0, &length) }
            }
        }
        switch result {
        case .wouldBlock: return .wouldBlock
        case .done(let client): return .done((client, SocketAddress(storage: storage)))
        }
    }

    static func close(_ fd: Int32) {
        // POSIX leaves the descriptor state unspecified after EINTR on close; Linux always
        // releases it, so retrying would risk closing a reused descriptor.
        _ = Glibc.close(fd)
    }

    static func setOption(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: Int32, _ what: String) throws(SystemError) {
        var v = value
        if setsockopt(fd, level, name, &v, socklen_t(MemoryLayout<Int32>.size)) != 0 {
            throw SystemError.last("setsockopt(\(what))")
        }
    }
}
