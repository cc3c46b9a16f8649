#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// An IPv4 or IPv6 socket address. `ip` is the textual address without port, used as the
/// key of per-IP rate limits.
public struct SocketAddress: Sendable, CustomStringConvertible {
    var storage: sockaddr_storage

    init(storage: sockaddr_storage) {
        self.storage = storage
    }

    /// Resolves a numeric host (no DNS: listeners bind to literal addresses) and a port.
    public init(host: String, port: Int) throws(SystemError) {
        guard let p = UInt16(exactly: port) else { throw SystemError("inet_pton(port)", errno: EINVAL) }
        var storage = sockaddr_storage()
        let host = (host == "localhost") ? "127.0.0.1" : host
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, host, &v4) == 1 {
            withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    $0.pointee.sin_family = sa_family_t(AF_INET)
                    $0.pointee.sin_port = p.bigEndian
                    $0.pointee.sin_addr = v4
                }
            }
        } else if inet_pton(AF_INET6, host, &v6) == 1 {
            withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    $0.pointee.sin6_family = sa_family_t(AF_INET6)
                    $0.pointee.sin6_port = p.bigEndian
                    $0.pointee.sin6_addr = v6
                }
            }
        } else {
            throw SystemError("inet_pton(\(host))", errno: EINVAL)
        }
        self.storage = storage
    }

    public var family: Int32 { Int32(storage.ss_family) }

    var length: socklen_t {
        family == AF_INET6 ? socklen_t(MemoryLayout<sockaddr_in6>.size) : socklen_t(MemoryLayout<sockaddr_in>.size)
    }

    public var port: Int {
        withUnsafePointer(to: storage) { ptr -> Int in
            if family == AF_INET6 {
                return ptr.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
            }
            return ptr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
        }
    }

    public var ip: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        withUnsafePointer(to: storage) { ptr in
            if family == AF_INET6 {
                ptr.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    var addr = $0.pointee.sin6_addr
                    _ = inet_ntop(AF_INET6, &addr, &buffer, socklen_t(buffer.count))
                }
            } else {
                ptr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    var addr = $0.pointee.sin_addr
                    _ = inet_ntop(AF_INET, &addr, &buffer, socklen_t(buffer.count))
                }
            }
        }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The address without the port, as a compact hashable key (an IPv4 address and the same
    /// address IPv4-mapped into IPv6 are different keys: a listener sees only one family).
    var host: PeerHost {
        withUnsafePointer(to: storage) { ptr -> PeerHost in
            if family == AF_INET6 {
                return ptr.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    let words = withUnsafeBytes(of: $0.pointee.sin6_addr) { raw in
                        (raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self),
                         raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
                    }
                    return PeerHost(family: AF_INET6, high: words.0, low: words.1)
                }
            }
            return ptr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                PeerHost(family: AF_INET, high: 0, low: UInt64($0.pointee.sin_addr.s_addr))
            }
        }
    }

    public var description: String {
        family == AF_INET6 ? "[\(ip)]:\(port)" : "\(ip):\(port)"
    }

    func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        withUnsafePointer(to: storage) { ptr in
            ptr.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }
}

/// An IP address without its port (`SocketAddress.host`).
struct PeerHost: Hashable, Sendable {
    let family: Int32
    let high: UInt64
    let low: UInt64
}

extension SocketAddress {
    /// An address from its 4 (IPv4) or 16 (IPv6) raw bytes in network order, and a port.
    init(rawAddress bytes: UnsafeRawBufferPointer, port: UInt16) {
        var storage = sockaddr_storage()
        withUnsafeMutablePointer(to: &storage) { pointer in
            if bytes.count == 16 {
                pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    $0.pointee.sin6_family = sa_family_t(AF_INET6)
                    $0.pointee.sin6_port = port.bigEndian
                    withUnsafeMutableBytes(of: &$0.pointee.sin6_addr) { $0.copyMemory(from: bytes) }
                }
            } else {
                pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    $0.pointee.sin_family = sa_family_t(AF_INET)
                    $0.pointee.sin_port = port.bigEndian
                    withUnsafeMutableBytes(of: &$0.pointee.sin_addr) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes.prefix(4))) }
                }
            }
        }
        self.init(storage: storage)
    }

    /// Calls `body` with the address's raw bytes, network order: 4 for IPv4, 16 for IPv6.
    func withAddressBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        withUnsafePointer(to: storage) { pointer in
            if family == AF_INET6 {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { withUnsafeBytes(of: $0.pointee.sin6_addr, body) }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { withUnsafeBytes(of: $0.pointee.sin_addr, body) }
        }
    }
}
