#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import COpenSSL
import WhisperClient

/// One blocking TCP connection, optionally TLS (OpenSSL, peer verified against the system's CA
/// store or `caFile`, host name checked, SNI sent). Every syscall is wrapped once here with an
/// error naming it. Used from one thread at a time.
final class BlockingSocket {
    private var fd: Int32 = -1
    private var ssl: OpaquePointer?
    private var context: OpaquePointer?

    init(host: String, port: Int, tls: Bool, caFile: String?, timeoutSeconds: Int) throws(TransportError) {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else {
            throw TransportError("getaddrinfo \(host): no address")
        }
        defer { freeaddrinfo(list) }
        var lastError = "connect: no address"
        var candidate: UnsafeMutablePointer<addrinfo>? = first
        while let info = candidate, fd < 0 {
            candidate = info.pointee.ai_next
            let socketFD = socket(info.pointee.ai_family, info.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue),
                                  info.pointee.ai_protocol)
            guard socketFD >= 0 else { lastError = "socket: \(Self.errorText())"; continue }
            var tv = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
            // On Linux SO_SNDTIMEO also bounds connect(2).
            setsockopt(socketFD, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(socketFD, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
            if Glibc.connect(socketFD, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 {
                var one: Int32 = 1
                setsockopt(socketFD, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                fd = socketFD
            } else {
                lastError = "connect \(host):\(port): \(Self.errorText())"
                Glibc.close(socketFD)
            }
        }
        guard fd >= 0 else { throw TransportError(lastError) }
        if tls { try startTLS(host: host, caFile: caFile) }
    }

    deinit { close() }

    private func startTLS(host: String, caFile: String?) throws(TransportError) {
        guard let context = SSL_CTX_new(TLS_client_method()) else { throw TransportError("SSL_CTX_new failed") }
        self.context = context
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        let loaded = caFile.map { SSL_CTX_load_verify_locations(context, $0, nil) } ?? SSL_CTX_set_default_verify_paths(context)
        guard loaded == 1 else { throw TransportError("TLS: cannot load CA certificates") }
        guard let ssl = SSL_new(context) else { throw TransportError("SSL_new failed") }
        self.ssl = ssl
        SSL_set_fd(ssl, fd)
        // An address is checked against the certificate's IP entries, a name against its DNS
        // names (and sent as SNI: SSL_set_tlsext_host_name is a macro over SSL_ctrl).
        if host.contains(":") || host.allSatisfy({ $0.isNumber || $0 == "." }) {
            guard X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host) == 1 else { throw TransportError("TLS: bad address") }
        } else {
            _ = host.withCString { SSL_ctrl(ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME, Int(TLSEXT_NAMETYPE_host_name), UnsafeMutableRawPointer(mutating: $0)) }
            guard SSL_set1_host(ssl, host) == 1 else { throw TransportError("TLS: bad host name") }
        }
        guard SSL_connect(ssl) == 1 else {
            let verify = SSL_get_verify_result(ssl)
            throw TransportError(verify == X509_V_OK ? "TLS handshake failed" : "TLS: certificate not trusted (verify error \(verify))")
        }
    }

    func write(_ bytes: [UInt8]) throws(TransportError) {
        guard fd >= 0 else { throw TransportError("write: closed") }
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { raw -> Int in
                if let ssl { return Int(SSL_write(ssl, raw.baseAddress, Int32(clamping: raw.count))) }
                return Glibc.send(fd, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL))
            }
            if n <= 0 {
                if ssl == nil, errno == EINTR { continue }
                throw TransportError("send: \(ssl == nil ? Self.errorText() : "TLS write failed")")
            }
            sent += n
        }
    }

    /// Appends what arrives within `timeoutMillis` to `buffer`: the count, 0 on timeout; throws
    /// `TransportError.closed` at end of stream.
    func read(into buffer: inout [UInt8], timeoutMillis: Int) throws(TransportError) -> Int {
        guard fd >= 0 else { throw .closed }
        if ssl.map({ SSL_pending($0) }) ?? 0 <= 0 {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(clamping: timeoutMillis))
            if ready == 0 || (ready < 0 && errno == EINTR) { return 0 }
            if ready < 0 { throw TransportError("poll: \(Self.errorText())") }
        }
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let n = chunk.withUnsafeMutableBytes { raw -> Int in
            if let ssl { return Int(SSL_read(ssl, raw.baseAddress, Int32(raw.count))) }
            return Glibc.recv(fd, raw.baseAddress, raw.count, 0)
        }
        if n == 0 { throw .closed }
        if n < 0 {
            if ssl == nil, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return 0 }
            throw ssl == nil ? TransportError("recv: \(Self.errorText())") : .closed
        }
        buffer.append(contentsOf: chunk[..<n])
        return n
    }

    func close() {
        if let ssl { SSL_free(ssl) }
        if let context { SSL_CTX_free(context) }
        (ssl, context) = (nil, nil)
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    static func errorText() -> String { String(cString: strerror(errno)) }
}
