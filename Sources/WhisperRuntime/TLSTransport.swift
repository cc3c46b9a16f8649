import COpenSSL

/// TLS over a non-blocking socket. The handshake runs implicitly inside the first
/// SSL_read/SSL_write; WANT_READ/WANT_WRITE are remembered so the connection arms the
/// right epoll interest (a read may need the socket writable, and a write readable).
final class TLSTransport: Transport {
    private let ssl: OpaquePointer
    private(set) var needsWritableToRead = false
    private(set) var needsReadableToWrite = false
    var shortReadDrains: Bool { false }

    init?(context: TLSContext, fd: Int32) {
        guard let ssl = context.makeSSL() else { return nil }
        guard SSL_set_fd(ssl, fd) == 1 else {
            SSL_free(ssl)
            return nil
        }
        SSL_set_accept_state(ssl)
        self.ssl = ssl
    }

    deinit { SSL_free(ssl) }

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
