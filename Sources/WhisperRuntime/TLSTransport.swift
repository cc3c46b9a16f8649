#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import COpenSSL

/// TLS over a non-blocking socket. On the server side the handshake runs implicitly inside the
/// first SSL_read/SSL_write; a client (`Connector`) completes it with `handshake()` first, so a
/// peer whose certificate does not verify never becomes a `Connection`. WANT_READ/WANT_WRITE
/// are remembered so the connection arms the right epoll interest (a read may need the socket
/// writable, and a write readable).
final class TLSTransport: Transport {
    private let ssl: OpaquePointer
    private(set) var needsWritableToRead = false
    private(set) var needsReadableToWrite = false
    var shortReadDrains: Bool { false }

    /// OpenSSL's socket BIO writes with plain `write(2)`, which raises SIGPIPE on a socket the
    /// peer closed (the plain transport uses MSG_NOSIGNAL). The server ignores it at start-up; a
    /// library user of the runtime (a Redis client in a tool or a test) cannot count on that.
    private static let ignoreSIGPIPE: Void = {
        _ = signal(SIGPIPE, SIG_IGN)
    }()

    init?(context: TLSContext, fd: Int32) {
        _ = Self.ignoreSIGPIPE
        guard let ssl = context.makeSSL() else { return nil }
        guard SSL_set_fd(ssl, fd) == 1 else {
            SSL_free(ssl)
            return nil
        }
        SSL_set_accept_state(ssl)
        self.ssl = ssl
    }

    /// The client side: SNI and hostname checking for a name, an address check for an IP literal
    /// (OpenSSL then accepts only a certificate listing that IP address).
    init?(client tls: ClientTLS, fd: Int32) {
        _ = Self.ignoreSIGPIPE
        guard let ssl = tls.context.makeSSL() else { return nil }
        guard SSL_set_fd(ssl, fd) == 1, Self.setPeerName(ssl, tls.serverName) else {
            SSL_free(ssl)
            return nil
        }
        SSL_set_connect_state(ssl)
        self.ssl = ssl
    }

    private static func setPeerName(_ ssl: OpaquePointer, _ name: String) -> Bool {
        var address = in6_addr()
        if inet_pton(AF_INET, name, &address) == 1 || inet_pton(AF_INET6, name, &address) == 1 {
            return X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), name) == 1
        }
        // SSL_set_tlsext_host_name is a macro around this call.
        let sni = name.withCString {
            SSL_ctrl(ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME, Int(TLSEXT_NAMETYPE_host_name), UnsafeMutableRawPointer(mutating: $0))
        }
        return sni == 1 && SSL_set1_host(ssl, name) == 1
    }

    deinit { SSL_free(ssl) }

    /// One step of a client handshake; `.wouldBlock` with `needsWritableToRead` telling which
    /// readiness to wait for. A certificate that fails verification throws with OpenSSL's reason
    /// for it (e.g. "unable to get local issuer certificate").
    func handshake() throws(TransportError) -> IOResult<Void> {
        ERR_clear_error()
        let n = SSL_do_handshake(ssl)
        needsWritableToRead = false
        if n == 1 { return .done(()) }
        switch SSL_get_error(ssl, n) {
        case SSL_ERROR_WANT_READ:
            return .wouldBlock
        case SSL_ERROR_WANT_WRITE:
            needsWritableToRead = true
            return .wouldBlock
        default:
            let verify = SSL_get_verify_result(ssl)
            if verify != X509_V_OK, let text = X509_verify_cert_error_string(verify) {
                throw .tls("certificate verify failed: \(String(cString: text))")
            }
            throw .tls("handshake failed: \(TLSContext.lastError())")
        }
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(TransportError) -> IOResult<Int> {
        ERR_clear_error()
        let n = SSL_read(ssl, buffer.baseAddress, Int32(clamping: buffer.count))
        needsWritableToRead = false
        if n > 0 { return .done(Int(n)) }
        switch SSL_get_error(ssl, n) {
        case SSL_ERROR_WANT_READ:
            return .wouldBlock
        case SSL_ERROR_WANT_WRITE:
            needsWritableToRead = true
            return .wouldBlock
        case SSL_ERROR_ZERO_RETURN:
            return .done(0)
        case SSL_ERROR_SYSCALL where n == 0:
            return .done(0)  // EOF without close_notify
        default:
            throw .tls(TLSContext.lastError())
        }
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws(TransportError) -> IOResult<Int> {
        ERR_clear_error()
        let n = SSL_write(ssl, bytes.baseAddress, Int32(clamping: bytes.count))
        needsReadableToWrite = false
        if n > 0 { return .done(Int(n)) }
        switch SSL_get_error(ssl, n) {
        case SSL_ERROR_WANT_WRITE:
            return .wouldBlock
        case SSL_ERROR_WANT_READ:
            needsReadableToWrite = true
            return .wouldBlock
        default:
            throw .tls(TLSContext.lastError())
        }
    }

    func shutdown() {
        // Best effort close_notify; never wait for the peer's.
        _ = SSL_shutdown(ssl)
    }
}
