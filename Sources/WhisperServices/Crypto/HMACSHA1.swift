internal import COpenSSL

/// HMAC-SHA1 (RFC 2104) through OpenSSL: the MAC of coturn's TURN REST credentials. SHA-1's
/// weaknesses do not apply to HMAC, and the scheme is fixed by coturn's `use-auth-secret`.
public enum HMACSHA1 {
    public static let byteCount = 20

    public static func authenticate(_ message: [UInt8], key: [UInt8]) -> [UInt8] {
        OpenSSLHMAC.authenticate(message, key: key, digest: EVP_sha1(), byteCount: byteCount)
    }
}

/// One-shot HMAC through OpenSSL for a given digest (`HMACSHA1`, `HMACSHA256`).
enum OpenSSLHMAC {
    static func authenticate(_ message: [UInt8], key: [UInt8], digest: OpaquePointer?, byteCount: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        // An empty array may have a nil base address and HMAC takes a non-null key: lend it one
        // byte of storage and pass the real length (0).
        let keyStorage = key.isEmpty ? [UInt8(0)] : key
        let ok = keyStorage.withUnsafeBufferPointer { keyBuffer in
            message.withUnsafeBufferPointer { messageBuffer in
                out.withUnsafeMutableBufferPointer { outBuffer in
                    HMAC(digest, keyBuffer.baseAddress, Int32(clamping: key.count),
                         messageBuffer.baseAddress, messageBuffer.count, outBuffer.baseAddress, &length) != nil
                }
            }
        }
        // HMAC fails only on allocation failure inside OpenSSL; there is no safe answer then.
        precondition(ok && Int(length) == byteCount, "OpenSSL HMAC failed")
        return Array(out.prefix(byteCount))
    }
}
