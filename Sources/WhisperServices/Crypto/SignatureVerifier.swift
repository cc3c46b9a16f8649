#if canImport(Glibc)
import Glibc
#endif
import WhisperOps

/// Ed25519 verification of signed frames (docs/protocol.md "Canonical signing": the signature is over SHA-256 of the
/// canonical bytes), with its own cost measured in place: every `sampleEvery`-th verify is
/// timed in thread CPU time (`CLOCK_THREAD_CPUTIME_ID`, so a preempted thread does not
/// inflate it) into `whisper_ed25519_verify_seconds`. Benchmarks divide server CPU per
/// message by this to get the overhead ratio R (the SHA-256 is outside the timed part). One per loop: not thread-safe.
public final class SignatureVerifier {
    private let histogram: Histogram?
    private let sampleEvery: UInt32
    private var count: UInt32 = 0

    public init(histogram: Histogram?, sampleEvery: UInt32 = 16) {
        self.histogram = histogram
        self.sampleEvery = max(1, sampleEvery)
    }

    /// Whether `signature` is `publicKey`'s Ed25519 signature of SHA-256(`signedBytes`) (frames
    /// signed per docs/protocol.md "Canonical signing").
    public func verify(signature: [UInt8], signedBytes: [UInt8], publicKey: [UInt8]) -> Bool {
        verify(signature: signature, message: Sodium.sha256(signedBytes), publicKey: publicKey)
    }

    /// Whether `signature` is `publicKey`'s Ed25519 signature of `message` itself (the raw
    /// challenge of `register_proof`).
    public func verify(signature: [UInt8], message: [UInt8], publicKey: [UInt8]) -> Bool {
        count &+= 1
        guard let histogram, count % sampleEvery == 0 else {
            return Sodium.verifyEd25519(signature: signature, message: message, publicKey: publicKey)
        }
        let started = Self.threadCPUNanos()
        let valid = Sodium.verifyEd25519(signature: signature, message: message, publicKey: publicKey)
        let elapsed = Self.threadCPUNanos() &- started
        histogram.observe(Double(elapsed) / 1e9)
        return valid
    }

    static func threadCPUNanos() -> UInt64 {
        var time = timespec()
        guard clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time) == 0 else { return 0 }
        return UInt64(truncatingIfNeeded: time.tv_sec) &* 1_000_000_000 &+ UInt64(truncatingIfNeeded: time.tv_nsec)
    }
}
