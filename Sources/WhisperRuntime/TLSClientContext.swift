import COpenSSL

/// Client-side TLS for outbound connections (Redis): TLS 1.2 or 1.3 with the same AEAD suites
/// as the server side, the peer's certificate chain verified against `caFile` (or the system
/// trust store), and optionally a client certificate for servers that require one. Which name or
/// address the certificate must carry is per connection (`ClientTLS.serverName`). The files are
/// read once, here.
public final class TLSClientContext: Sendable {
    /// An `SSL_CTX` pointer; OpenSSL's SSL_CTX is safe to share for `SSL_new` across threads.
    private struct Handle: @unchecked Sendable {
        let ctx: OpaquePointer
    }

    private let handle: Handle

    /// `certificateFile` and `keyFile` go together (a PEM chain and its key).
    public init(caFile: String?, certificateFile: String? = nil, keyFile: String? = nil) throws(TLSConfigError) {
        guard let method = TLS_client_method(), let ctx = SSL_CTX_new(method) else {
            throw TLSConfigError(reason: "SSL_CTX_new failed: \(TLSContext.lastError())")
        }
        do {
            try Self.configure(ctx, caFile: caFile, certificateFile: certificateFile, keyFile: keyFile)
        } catch {
            SSL_CTX_free(ctx)
            throw error
        }
        handle = Handle(ctx: ctx)
    }

    deinit { SSL_CTX_free(handle.ctx) }

    func makeSSL() -> OpaquePointer? { SSL_new(handle.ctx) }

    private static func configure(_ ctx: OpaquePointer, caFile: String?, certificateFile: String?,
                                  keyFile: String?) throws(TLSConfigError) {
        guard whisper_SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) == 1,
              SSL_CTX_set_cipher_list(ctx, TLSContext.tls12Ciphers) == 1 else {
            throw TLSConfigError(reason: "cannot require TLS 1.2 with AEAD suites: \(TLSContext.lastError())")
        }
        _ = SSL_CTX_set_options(ctx, whisper_SSL_hardening_options())
        _ = whisper_SSL_CTX_set_mode(ctx, whisper_SSL_MODE_non_blocking_defaults())
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nil)
        if let caFile {
            guard SSL_CTX_load_verify_locations(ctx, caFile, nil) == 1 else {
                throw TLSConfigError(reason: "CA file \(caFile): \(TLSContext.lastError())")
            }
        } else if SSL_CTX_set_default_verify_paths(ctx) != 1 {
            throw TLSConfigError(reason: "system trust store: \(TLSContext.lastError())")
        }
        switch (certificateFile, keyFile) {
        case (nil, nil):
            break
        case (let certificate?, let key?):
            guard SSL_CTX_use_certificate_chain_file(ctx, certificate) == 1 else {
                throw TLSConfigError(reason: "client certificate \(certificate): \(TLSContext.lastError())")
            }
            guard SSL_CTX_use_PrivateKey_file(ctx, key, SSL_FILETYPE_PEM) == 1, SSL_CTX_check_private_key(ctx) == 1 else {
                throw TLSConfigError(reason: "client key \(key): \(TLSContext.lastError())")
            }
        default:
            throw TLSConfigError(reason: "a client certificate needs both its certificate and its key file")
        }
    }
}

/// TLS for one outbound connection: the context and the name (or IP address) the server's
/// certificate must be valid for, also sent as SNI when it is a name.
public struct ClientTLS: Sendable {
    public let context: TLSClientContext
    public let serverName: String

    public init(context: TLSClientContext, serverName: String) {
        self.context = context
        self.serverName = serverName
    }
}
