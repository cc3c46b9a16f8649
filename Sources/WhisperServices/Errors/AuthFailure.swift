/// Why a `register_proof` got `AUTH_FAILED`. Logged, never sent: the wire message does not
/// say which check failed, so a probe cannot tell an unknown Whisper ID from a known one
/// with different keys.
public enum AuthFailure: String, Sendable, Equatable {
    /// No such challenge: never issued, expired (TTL) or already consumed by a proof.
    case challengeUnknown = "challenge_unknown"
    /// The challenge was issued to `register_begin` with another deviceId or whisperId.
    case challengeMismatch = "challenge_mismatch"
    /// `signature` is not an Ed25519 signature of the challenge bytes by `signPublicKey`.
    case badSignature = "bad_signature"
    /// Recovery login with a Whisper ID that is not registered.
    case unknownIdentity = "unknown_identity"
    /// Recovery login whose public keys differ from the stored identity's.
    case keyMismatch = "key_mismatch"
}
