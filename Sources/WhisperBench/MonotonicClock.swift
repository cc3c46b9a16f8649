#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import CLinux

/// The two clocks the benchmark reads: monotonic nanoseconds (shared by all threads, so loops
/// and the orchestrator agree on window boundaries) and wall-clock milliseconds for protocol
/// timestamps.
enum MonotonicClock {
    @inline(__always)
    static func now() -> UInt64 { clinux_monotonic_ns() }

    static func wallMillis() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }

    static func nanoseconds(_ seconds: Double) -> UInt64 {
        seconds <= 0 ? 0 : UInt64(min(seconds, 1e9) * 1e9)
    }
}
