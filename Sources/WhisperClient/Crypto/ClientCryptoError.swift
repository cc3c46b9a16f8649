/// Why a client crypto operation refused its input (docs/client.md). Closed: every case is a
/// wrong size, a failed authentication or a derivation request out of range — never a secret.
public enum ClientCryptoError: Error, Equatable, Sendable {
    /// A key, nonce or seed of the wrong size (`what` names it: "nonce", "public key", …).
    case wrongLength(what: String, expected: Int, got: Int)
    /// A peer public key X25519 refuses: one of small order, whose shared secret would be all
    /// zeros (libsodium checks; a peer offering one is broken or hostile).
    case invalidPublicKey
    /// A box or secretbox whose Poly1305 tag does not verify: wrong key, wrong nonce, or
    /// tampered bytes (the three cannot be told apart, by design).
    case decryptionFailed
    /// An envelope whose Ed25519 signature does not verify under the sender's sign key.
    case badSignature
    /// HKDF asked for more than 255 × 32 bytes (RFC 5869 §2.3).
    case derivationTooLong(Int)
}
