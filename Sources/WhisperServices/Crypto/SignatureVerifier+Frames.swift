import WhisperProtocol

extension SignatureVerifier {
    /// The checks every signed client frame (messages, call signals) passes before any I/O,
    /// cheapest first — a signature costs as much to reject as to accept (docs/protocol.md
    /// "Canonical signing"): `from` is the session's identity → else `FORBIDDEN`; `timestamp`
    /// within `skewMillis` of `nowMillis` → else `INVALID_TIMESTAMP`; the signature over
    /// SHA-256 of `signedBytes()` by the session's sign key → else `AUTH_FAILED`.
    /// Answers the refusal, or nil when the frame passes.
    func refusal(from: WhisperID, timestamp: Int64, signature: [UInt8], signedBytes: () -> [UInt8],
                 session: SessionRecord, skewMillis: Int64, nowMillis: Int64) -> ServiceError? {
        guard from == session.whisperId else { return .forbidden("from is not the session's whisperId") }
        guard abs(timestamp - nowMillis) <= skewMillis else { return .invalidTimestamp }
        guard verify(signature: signature, signedBytes: signedBytes(), publicKey: session.signPublicKey) else {
            return .authFailed(.badSignature)
        }
        return nil
    }
}
