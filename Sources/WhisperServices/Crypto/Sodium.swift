internal import CSodium

/// The libsodium primitives the services use, each wrapped once. `initialize()` must run
/// once at start-up before any other call (libsodium picks its implementations and seeds
/// its generator there); every other function is thread-safe afterwards.
public enum Sodium {
    public enum InitError: Error, CustomStringConvertible {
        case failed
        public var description: String { "libsodium: sodium_init() failed" }
    }

    public static let ed25519PublicKeyBytes = 32
    public static let ed25519SignatureBytes = 64
    public static let sha256Bytes = 32

    /// `sodium_init()`: safe to call more than once (later calls return 1 and do nothing).
    public static func initialize() throws(InitError) {
        guard sodium_init() >= 0 else { throw .failed }
    }

    /// `count` bytes from the OS CSPRNG (`randombytes_buf`).
    public static func randomBytes(_ count: Int) -> [UInt8] {
        guard count > 0 else { return [] }
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            if let base = buffer.baseAddress { randombytes_buf(base, count) }
            initialized = count
        }
    }

    /// SHA-256 (`crypto_hash_sha256`).
    public static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: sha256Bytes) { out, initialized in
            guard let outBase = out.baseAddress else { return }
            withNonNullPointer(bytes) { input, count in
                _ = crypto_hash_sha256(outBase, input, UInt64(count))
            }
            initialized = sha256Bytes
        }
    }

    /// Ed25519 verification of a detached signature over `message` as given (no hashing,
    /// docs/protocol.md "Identity and sessions"). Wrong key or signature sizes are simply invalid.
    public static func verifyEd25519(signature: [UInt8], message: [UInt8], publicKey: [UInt8]) -> Bool {
        guard signature.count == ed25519SignatureBytes, publicKey.count == ed25519PublicKeyBytes else { return false }
        return withNonNullPointer(signature) { sig, _ in
            withNonNullPointer(message) { msg, count in
                withNonNullPointer(publicKey) { key, _ in
                    crypto_sign_verify_detached(sig, msg, UInt64(count), key) == 0
                }
            }
        }
    }

    /// Constant-time equality (`sodium_memcmp`) for values derived from secrets, such as
    /// session-token hashes. Different lengths are unequal (lengths are not secret).
    public static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        guard !a.isEmpty else { return true }
        return withNonNullPointer(a) { x, count in
            withNonNullPointer(b) { y, _ in sodium_memcmp(x, y, count) == 0 }
        }
    }

    /// The same for a remembered value and bytes of a frame.
    public static func constantTimeEqual(_ a: [UInt8], _ b: ArraySlice<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        guard !a.isEmpty else { return true }
        return withNonNullPointer(a) { x, count in
            b.withUnsafeBufferPointer { y in y.baseAddress.map { sodium_memcmp(x, $0, count) == 0 } ?? false }
        }
    }

    /// libsodium's parameters are declared non-null, but an empty array may have no storage:
    /// lend a pointer to a dummy byte then (the length passed alongside is still 0).
    static func withNonNullPointer<R>(_ bytes: [UInt8], _ body: (UnsafePointer<UInt8>, Int) -> R) -> R {
        bytes.withUnsafeBufferPointer { buffer in
            if let base = buffer.baseAddress { return body(base, buffer.count) }
            var dummy: UInt8 = 0
            return withUnsafePointer(to: &dummy) { body($0, 0) }
        }
    }
}
