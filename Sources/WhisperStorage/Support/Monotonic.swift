#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Monotonic clock in nanoseconds, for deadlines and backoff. Wall-clock time can jump;
/// deadlines must not.
func monotonicNanos() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(truncatingIfNeeded: ts.tv_sec) &* 1_000_000_000 &+ UInt64(truncatingIfNeeded: ts.tv_nsec)
}

/// Milliseconds from configuration to nanoseconds, capped at 30 days: a huge configured
/// value means "practically never", never an overflow trap or a deadline that wraps
/// around to the past.
func nanoseconds(fromMillis millis: Int, minimum: Int = 0) -> UInt64 {
    let cap = 30 * 24 * 3600 * 1000
    return UInt64(min(cap, max(minimum, millis))) * 1_000_000
}
