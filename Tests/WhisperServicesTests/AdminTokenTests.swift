import Testing
import WhisperServices

/// `AdminToken`: only the exact configured token passes, whatever its length or prefix.
struct AdminTokenTests {
    init() throws { try Sodium.initialize() }

    @Test func accepts_onlyTheExactToken() {
        let token = AdminToken("s3cret-admin-token")
        #expect(token.accepts("s3cret-admin-token"))
        for wrong in ["", "s", "s3cret-admin-toke", "s3cret-admin-tokenx", "S3CRET-ADMIN-TOKEN", " s3cret-admin-token",
                      "s3cret-admin-token\n", String(repeating: "x", count: 10_000)] {
            #expect(!token.accepts(wrong), "\(wrong.prefix(20))")
        }
    }

    /// The comparison is of SHA-256 digests with `sodium_memcmp` (`Sodium.constantTimeEqual`),
    /// so every presented token is compared as 32 bytes against 32 bytes.
    @Test func comparison_isOverEqualLengthDigests() {
        #expect(Sodium.sha256(Array("a".utf8)).count == Sodium.sha256(Array(String(repeating: "a", count: 4096).utf8)).count)
        #expect(Sodium.constantTimeEqual(Sodium.sha256(Array("t".utf8)), Sodium.sha256(Array("t".utf8))))
        #expect(!Sodium.constantTimeEqual(Sodium.sha256(Array("t".utf8)), Sodium.sha256(Array("u".utf8))))
    }
}
