internal import CSodium

/// The libsodium primitives the client uses, each wrapped once, sizes checked before any C call.
/// `sodium_init()` runs lazily, once, before the first primitive (a Swift global is initialised
/// exactly once, thread-safely); every function is thread-safe afterwards.
enum Libsodium {
    static let keyBytes = 32
    static let nonceBytes = 24
    static let tagBytes = 16
    static let signatureBytes = 64
    static let signSecretKeyBytes = 64
    static let sha256Bytes = 32

    /// `sodium_init()` < 0 only when the OS has no usable randomness source; libsodium's own
    /// generator aborts in that case anyway, so the result carries no further decision.
    private static let initialized: Bool = sodium_init() >= 0

    static func prepare() { _ = initialized }

    /// `count` bytes from the OS CSPRNG (`randombytes_buf`).
    static func randomBytes(_ count: Int) -> [UInt8] {
        prepare()
        guard count > 0 else { return [] }
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            if let base = buffer.baseAddress { randombytes_buf(base, count) }
            initialized = count
        }
    }

    static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        prepare()
        return output(sha256Bytes) { out in
            withNonNullPointer(bytes) { input, count in _ = crypto_hash_sha256(out, input, UInt64(count)) }
        }
    }

    /// X25519 public key of a 32-byte secret key (`crypto_scalarmult_base`; the scalar is clamped
    /// inside, RFC 7748 §5).
    static func x25519PublicKey(secretKey: [UInt8]) throws(ClientCryptoError) -> [UInt8] {
        prepare()
        try check(secretKey, keyBytes, "X25519 secret key")
        var failed = false
        let publicKey = output(keyBytes) { out in failed = crypto_scalarmult_base(out, secretKey) != 0 }
        // Only an all-zero result fails, which no clamped scalar gives; checked all the same.
        guard !failed else { throw .invalidPublicKey }
        return publicKey
    }

    /// Ed25519 key pair of a 32-byte RFC 8032 seed (`crypto_sign_seed_keypair`): the public key
    /// and libsodium's 64-byte secret key (seed ‖ public key).
    static func ed25519KeyPair(seed: [UInt8]) throws(ClientCryptoError) -> (publicKey: [UInt8], secretKey: [UInt8]) {
        prepare()
        try check(seed, keyBytes, "Ed25519 seed")
        var publicKey = [UInt8](repeating: 0, count: keyBytes)
        var secretKey = [UInt8](repeating: 0, count: signSecretKeyBytes)
        _ = crypto_sign_seed_keypair(&publicKey, &secretKey, seed)
        return (publicKey, secretKey)
    }

    /// Detached Ed25519 signature of `message` as given (`crypto_sign_detached`).
    static func ed25519Sign(_ message: [UInt8], secretKey: [UInt8]) -> [UInt8] {
        prepare()
        return output(signatureBytes) { out in
            withNonNullPointer(message) { msg, count in _ = crypto_sign_detached(out, nil, msg, UInt64(count), secretKey) }
        }
    }

    static func ed25519Verify(signature: [UInt8], message: [UInt8], publicKey: [UInt8]) -> Bool {
        prepare()
        guard signature.count == signatureBytes, publicKey.count == keyBytes else { return false }
        return withNonNullPointer(message) { msg, count in
            crypto_sign_verify_detached(signature, msg, UInt64(count), publicKey) == 0
        }
    }

    /// `crypto_box_easy`: X25519 + XSalsa20-Poly1305, output = tag(16) ‖ ciphertext.
    static func box(_ plaintext: [UInt8], nonce: [UInt8], recipientPublicKey: [UInt8],
                    senderSecretKey: [UInt8]) throws(ClientCryptoError) -> [UInt8] {
        try checkBoxInputs(nonce: nonce, publicKey: recipientPublicKey, secretKey: senderSecretKey)
        var failed = false
        let sealed = output(plaintext.count + tagBytes) { out in
            withNonNullPointer(plaintext) { msg, count in
                failed = crypto_box_easy(out, msg, UInt64(count), nonce, recipientPublicKey, senderSecretKey) != 0
            }
        }
        // crypto_box refuses a public key of small order (an all-zero shared secret).
        guard !failed else { throw .invalidPublicKey }
        return sealed
    }

    /// `crypto_box_open_easy`: the inverse of `box`, or `.decryptionFailed`.
    static func boxOpen(_ sealed: [UInt8], nonce: [UInt8], senderPublicKey: [UInt8],
                        recipientSecretKey: [UInt8]) throws(ClientCryptoError) -> [UInt8] {
        try checkBoxInputs(nonce: nonce, publicKey: senderPublicKey, secretKey: recipientSecretKey)
        guard sealed.count >= tagBytes else { throw .decryptionFailed }
        var failed = false
        let plaintext = output(sealed.count - tagBytes) { out in
            failed = crypto_box_open_easy(out, sealed, UInt64(sealed.count), nonce, senderPublicKey, recipientSecretKey) != 0
        }
        guard !failed else { throw .decryptionFailed }
        return plaintext
    }

    /// `crypto_secretbox_easy`: XSalsa20-Poly1305 under a 32-byte key, output = tag(16) ‖ ciphertext.
    static func secretbox(_ plaintext: [UInt8], nonce: [UInt8], key: [UInt8]) throws(ClientCryptoError) -> [UInt8] {
        prepare()
        try check(nonce, nonceBytes, "nonce")
        try check(key, keyBytes, "key")
        return output(plaintext.count + tagBytes) { out in
            withNonNullPointer(plaintext) { msg, count in _ = crypto_secretbox_easy(out, msg, UInt64(count), nonce, key) }
        }
    }

    static func secretboxOpen(_ sealed: [UInt8], nonce: [UInt8], key: [UInt8]) throws(ClientCryptoError) -> [UInt8] {
        prepare()
        try check(nonce, nonceBytes, "nonce")
        try check(key, keyBytes, "key")
        guard sealed.count >= tagBytes else { throw .decryptionFailed }
        var failed = false
        let plaintext = output(sealed.count - tagBytes) { out in
            failed = crypto_secretbox_open_easy(out, sealed, UInt64(sealed.count), nonce, key) != 0
        }
        guard !failed else { throw .decryptionFailed }
        return plaintext
    }

    /// Initialises libsodium and checks the sizes a box takes, before any C call.
    static func checkBoxInputs(nonce: [UInt8], publicKey: [UInt8], secretKey: [UInt8]) throws(ClientCryptoError) {
        prepare()
        try check(nonce, nonceBytes, "nonce")
        try check(publicKey, keyBytes, "public key")
        try check(secretKey, keyBytes, "secret key")
    }

    static func check(_ bytes: [UInt8], _ expected: Int, _ what: String) throws(ClientCryptoError) {
        guard bytes.count == expected else { throw .wrongLength(what: what, expected: expected, got: bytes.count) }
    }

    /// A fresh array of `count` bytes filled by `body` (zeros if `body` leaves it: never uninitialised).
    static func output(_ count: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Void) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: max(count, 1))
        bytes.withUnsafeMutableBufferPointer { buffer in
            if let base = buffer.baseAddress { body(base) }
        }
        return count == 0 ? [] : bytes
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
