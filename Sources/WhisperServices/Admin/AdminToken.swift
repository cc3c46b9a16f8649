/// The admin API's bearer token (`WHISPER_ADMIN_TOKEN`, docs/operations.md "Admin API").
///
/// Both the configured and the presented token are reduced to their SHA-256 digest, and
/// the digests are compared with `sodium_memcmp`: the time taken depends neither on where
/// the first differing byte is nor on the presented token's length, so the token cannot be
/// guessed byte by byte from response times.
public struct AdminToken: Sendable {
    private let digest: [UInt8]

    public init(_ configured: String) {
        digest = Sodium.sha256(Array(configured.utf8))
    }

    public func accepts(_ presented: String) -> Bool {
        Sodium.constantTimeEqual(Sodium.sha256(Array(presented.utf8)), digest)
    }
}
