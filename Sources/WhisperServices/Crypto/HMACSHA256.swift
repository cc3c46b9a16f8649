internal import COpenSSL
import WhisperProtocol

/// HMAC-SHA256 (RFC 2104) through OpenSSL: the MAC chain of AWS Signature Version 4 (`SigV4`).
public enum HMACSHA256 {
    public static let byteCount = 32

    public static func authenticate(_ message: [UInt8], key: [UInt8]) -> [UInt8] {
        OpenSSLHMAC.authenticate(message, key: key, digest: EVP_sha256(), byteCount: byteCount)
    }
}

/// SHA-256 (FIPS 180-4) through OpenSSL: SigV4 hashes the canonical request with it.
public enum SHA256Digest {
    public static func hash(_ message: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        message.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { output in
                // SHA256 cannot fail; it returns its output pointer.
                _ = SHA256(input.baseAddress, input.count, output.baseAddress)
            }
        }
        return out
    }

    /// Lowercase hex of the digest, as SigV4 writes hashes.
    public static func hex(_ message: [UInt8]) -> String { Hex.encode(hash(message)) }
}
