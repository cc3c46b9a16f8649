#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Host names resolved off the event loop: `getaddrinfo` blocks (a slow DNS server stalls it for
/// seconds), so each lookup runs on a short-lived thread of its own and hands its answer back with
/// `loop.execute`. Lookups are rare — a (re)connect to Redis — so a thread each is cheaper than
/// keeping a pool. An IP literal needs no lookup and no thread.
public enum HostResolver {
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    public typealias Completion = (Result<[SocketAddress], Failure>) -> Void

    /// Calls `completion` on `loop`, never from inside this call, with every address of `host`
    /// (IPv4 and IPv6, in getaddrinfo's order of preference). Loop thread only.
    public static func resolve(_ host: String, port: Int, loop: EventLoop, completion: @escaping Completion) {
        guard let port = UInt16(exactly: port) else {
            loop.deferToEndOfIteration { completion(.failure(Failure(description: "bad port \(port)"))) }
            return
        }
        if isIPLiteral(host), let address = try? SocketAddress(host: host, port: Int(port)) {
            loop.deferToEndOfIteration { completion(.success([address])) }
            return
        }
        let reply = LoopBound(completion, loop: loop)
        NamedThread.start("whisper-resolve") {
            let result = lookUp(host, port: port)
            reply.deliver { $0(result) }
        }
    }

    static func isIPLiteral(_ host: String) -> Bool {
        var address = in6_addr()
        return inet_pton(AF_INET, host, &address) == 1 || inet_pton(AF_INET6, host, &address) == 1
    }

    /// The blocking part, on the lookup's own thread.
    private static func lookUp(_ host: String, port: UInt16) -> Result<[SocketAddress], Failure> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0 else {
            return .failure(Failure(description: "cannot resolve \(host): \(String(cString: gai_strerror(status)))"))
        }
        defer { freeaddrinfo(list) }
        var addresses: [SocketAddress] = []
        var entry = list
        while let current = entry?.pointee {
            entry = current.ai_next
            guard let address = current.ai_addr, current.ai_family == AF_INET || current.ai_family == AF_INET6,
                  Int(current.ai_addrlen) <= MemoryLayout<sockaddr_storage>.size else { continue }
            var storage = sockaddr_storage()
            withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: UnsafeRawBufferPointer(start: address, count: Int(current.ai_addrlen))) }
            addresses.append(SocketAddress(storage: storage))
        }
        guard !addresses.isEmpty else { return .failure(Failure(description: "\(host) has no IPv4 or IPv6 address")) }
        return .success(addresses)
    }
}
