import WhisperOps

/// The timeline of a relay run, in monotonic nanoseconds (one clock for every thread):
///
///     start ──warmup──▶ windowStart ──duration──▶ windowEnd ──settle, sweep──▶
///
/// Events are counted "in the window" by when they happen; latencies by when the message
/// was sent.
struct RelayWindow: Sendable, Equatable {
    var start: UInt64
    var windowStart: UInt64
    var windowEnd: UInt64

    @inline(__always)
    func contains(_ time: UInt64) -> Bool { time >= windowStart && time < windowEnd }

    var seconds: Double { Double(windowEnd - windowStart) / 1e9 }

    /// `windowStart` on the wall clock, Unix milliseconds (read now, so call it near the window).
    var windowStartUnixMillis: Int64 {
        let monotonic = Int64(clamping: MonotonicClock.now())
        let offsetMillis = (Int64(clamping: windowStart) - monotonic) / 1_000_000
        return WallTime.now().epochMillis + offsetMillis
    }

    /// Starting 50 ms from now (time for every shard to arm), then the warm-up and the window.
    static func fromNow(warmupSeconds: Double, durationSeconds: Double) -> RelayWindow {
        let start = MonotonicClock.now() + 50_000_000
        return RelayWindow(start: start, windowStart: start + MonotonicClock.nanoseconds(warmupSeconds),
                           windowEnd: start + MonotonicClock.nanoseconds(warmupSeconds + durationSeconds))
    }
}
