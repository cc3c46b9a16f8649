#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Wall-clock time for the protocol (epoch milliseconds).
enum Clock {
    static func epochMillis() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }

    /// Epoch microseconds: routing latency is measured across nodes with it.
    static func epochMicros() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1_000
    }
}
