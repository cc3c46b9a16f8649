import COpenSSL

/// A server TLS context from PEM certificate chain and key files (TLS 1.2+).
public final class TLSContext: @unchecked Sendable {
    // Immutable after init; OpenSSL's SSL_CTX is safe to share for SSL_new across threads.
    let ctx: OpaquePointer

    public init(certificatePath: String, keyPath: String) throws(TLSConfigError) {
        guard let method = TLS_server_method(), let ctx = SSL_CTX_new(method) else {
            throw TLSConfigError(reason: "SSL_CTX_new failed: \(TLSContext.lastError())")
        }
        guard whisper_SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) == 1 else {
            SSL_CTX_free(ctx)
            throw TLSConfigError(reason: "cannot require TLS 1.2")
        }
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
        self.ctx = ctx
    }

    deinit { SSL_CTX_free(ctx) }

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
