internal import CLinux

/// CLOCK_MONOTONIC in nanoseconds, for deadlines, timeouts, backoff and durations: wall-clock
/// time can jump, this never goes backwards. The one reading for the event loops, the storage
/// clients and the benchmark; here because all of them import WhisperOps, and it goes through
/// `clinux_monotonic_ns` (no Glibc `timespec` arithmetic repeated in Swift).
public enum MonotonicClock {
    /// Nanoseconds since an arbitrary fixed point (boot); only differences mean anything.
    public static func now() -> UInt64 { clinux_monotonic_ns() }
}
