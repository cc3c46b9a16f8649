import COpenSSL
import Synchronization

/// The server's TLS settings from PEM certificate chain and key files: TLS 1.2 and 1.3 only,
/// TLS 1.2 restricted to forward-secret AEAD suites (Mozilla's "intermediate" list), no
/// renegotiation. `reload()` (on SIGHUP) reads the files again: connections accepted afterwards
/// use the new certificate, established ones keep theirs (each `SSL` holds a reference to the
/// `SSL_CTX` it was made from).
public final class TLSContext: Sendable {
    /// ECDHE key exchange with AES-GCM or ChaCha20-Poly1305; TLS 1.3 suites are OpenSSL's
    /// defaults (all AEAD).
    static let tls12Ciphers = "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:"
        + "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:"
        + "ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305"

    /// An `SSL_CTX` pointer; OpenSSL's SSL_CTX is safe to share for `SSL_new` across threads.
    private struct Handle: @unchecked Sendable {
        let ctx: OpaquePointer
    }

    public let certificatePath: String
    public let keyPath: String
    private let current: Mutex<Handle>

    public init(certificatePath: String, keyPath: String) throws(TLSConfigError) {
        self.certificatePath = certificatePath
        self.keyPath = keyPath
        current = Mutex(Handle(ctx: try Self.make(certificatePath: certificatePath, keyPath: keyPath)))
    }

    deinit { current.withLock { SSL_CTX_free($0.ctx) } }

    /// A new connection's `SSL` on the current certificate.
    func makeSSL() -> OpaquePointer? {
        current.withLock { SSL_new($0.ctx) }
    }

    /// Reads the certificate and key files again; on any error the current ones stay.
    public func reload() throws(TLSConfigError) {
        let fresh = try Self.make(certificatePath: certificatePath, keyPath: keyPath)
        let old = current.withLock { handle in
            defer { handle = Handle(ctx: fresh) }
            return handle.ctx
        }
        SSL_CTX_free(old)
    }

    private static func make(certificatePath: String, keyPath: String) throws(TLSConfigError) -> OpaquePointer {
        guard let method = TLS_server_method(), let ctx = SSL_CTX_new(method) else {
            throw TLSConfigError(reason: "SSL_CTX_new failed: \(TLSContext.lastError())")
        }
        guard whisper_SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) == 1,
              SSL_CTX_set_cipher_list(ctx, tls12Ciphers) == 1 else {
            SSL_CTX_free(ctx)
            throw TLSConfigError(reason: "cannot require TLS 1.2 with AEAD suites: \(TLSContext.lastError())")
        }
        _ = SSL_CTX_set_options(ctx, whisper_SSL_hardening_options())
        _ = whisper_SSL_CTX_set_mode(ctx, whisper_SSL_MODE_non_blocking_defaults())
        guard SSL_CTX_use_certificate_chain_file(ctx, certificatePath) == 1 else {
            SSL_CTX_free(ctx)
            throw TLSConfigError(reason: "certificate \(certificatePath): \(TLSContext.lastError())")
        }
        guard SSL_CTX_use_PrivateKey_file(ctx, keyPath, SSL_FILETYPE_PEM) == 1,
              SSL_CTX_check_private_key(ctx) == 1 else {
            SSL_CTX_free(ctx)
            throw TLSConfigError(reason: "private key \(keyPath): \(TLSContext.lastError())")
        }
        return ctx
    }

    static func lastError() -> String {
        let code = ERR_get_error()
        guard code != 0 else { return "unknown error" }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

public struct TLSConfigError: Error, CustomStringConvertible, Sendable {
    public let reason: String
    public var description: String { reason }
}
