internal import COpenSSL
import WhisperProtocol

/// Compact JSON Web Signatures (RFC 7515) with a private key through OpenSSL: ES256 (ECDSA
/// P-256, RFC 7518 §3.4) for APNs provider tokens and RS256 (RSASSA-PKCS1-v1_5 with SHA-256,
/// RFC 7518 §3.3) for Google's OAuth service-account assertions (docs/architecture.md "Push").
///
/// An `EVP_PKEY` is only read after loading (each signature has its own digest context), so
/// one signer may be used from any thread.
public final class JWTSigner: @unchecked Sendable {
    public enum Algorithm: String, Sendable {
        case es256 = "ES256"
        case rs256 = "RS256"
    }

    public let algorithm: Algorithm
    private let key: OpaquePointer

    /// Loads a PEM private key (PKCS#8 `BEGIN PRIVATE KEY`, as Apple's `.p8` and Google's
    /// service-account `private_key` are); nil unless it is a P-256 key for ES256 or an RSA
    /// key of at least 2048 bits for RS256.
    public init?(pem: String, algorithm: Algorithm) {
        let bytes = Array(pem.utf8)
        guard bytes.count < 65_536 else { return nil }
        let loaded: OpaquePointer? = bytes.withUnsafeBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
        }
        guard let loaded else { return nil }
        let suitable: Bool
        switch algorithm {
        case .es256:
            var name = [CChar](repeating: 0, count: 64)
            suitable = EVP_PKEY_get_base_id(loaded) == EVP_PKEY_EC
                && EVP_PKEY_get_group_name(loaded, &name, name.count, nil) == 1
                && String(decoding: name.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self) == "prime256v1"
        case .rs256:
            suitable = EVP_PKEY_get_base_id(loaded) == EVP_PKEY_RSA && EVP_PKEY_get_bits(loaded) >= 2048
        }
        guard suitable else {
            EVP_PKEY_free(loaded)
            return nil
        }
        self.key = loaded
        self.algorithm = algorithm
    }

    deinit { EVP_PKEY_free(key) }

    /// `base64url(header).base64url(claims).base64url(signature)`; header and claims are
    /// JSON texts the caller built. nil only if OpenSSL fails to sign.
    public func token(header: String, claims: String) -> String? {
        let signingInput = Self.base64URL(Array(header.utf8)) + "." + Self.base64URL(Array(claims.utf8))
        guard let signature = sign(Array(signingInput.utf8)) else { return nil }
        return signingInput + "." + Self.base64URL(signature)
    }

    /// The JWS signature of `input`: for ES256 the raw `r || s` (32 bytes each, RFC 7518 §3.4),
    /// not OpenSSL's DER; for RS256 the PKCS#1 v1.5 signature.
    public func sign(_ input: [UInt8]) -> [UInt8]? {
        guard let context = EVP_MD_CTX_new() else { return nil }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1 else { return nil }
        var length = 0
        guard input.withUnsafeBufferPointer({ EVP_DigestSign(context, nil, &length, $0.baseAddress, $0.count) }) == 1,
              length > 0 else { return nil }
        var signature = [UInt8](repeating: 0, count: length)
        let signed = input.withUnsafeBufferPointer { message in
            signature.withUnsafeMutableBufferPointer {
                EVP_DigestSign(context, $0.baseAddress, &length, message.baseAddress, message.count)
            }
        }
        guard signed == 1 else { return nil }
        signature.removeSubrange(length...)
        return algorithm == .es256 ? Self.rawECDSA(der: signature) : signature
    }

    /// DER `ECDSA-Sig-Value` → `r || s`, each left-padded to 32 bytes.
    static func rawECDSA(der: [UInt8]) -> [UInt8]? {
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let parsed else { return nil }
        defer { ECDSA_SIG_free(parsed) }
        guard let r = ECDSA_SIG_get0_r(parsed), let s = ECDSA_SIG_get0_s(parsed) else { return nil }
        var raw = [UInt8](repeating: 0, count: 64)
        let written = raw.withUnsafeMutableBufferPointer { out in
            BN_bn2binpad(r, out.baseAddress, 32) == 32 && BN_bn2binpad(s, out.baseAddress.map { $0 + 32 }, 32) == 32
        }
        return written ? raw : nil
    }

    /// Base64url without padding (RFC 7515 §2).
    public static func base64URL(_ bytes: [UInt8]) -> String {
        var text = ""
        text.reserveCapacity(Base64.encodedLength(forByteCount: bytes.count))
        for character in Base64.encode(bytes) {
            switch character {
            case "+": text.append("-")
            case "/": text.append("_")
            case "=": break
            default: text.append(character)
            }
        }
        return text
    }
}
