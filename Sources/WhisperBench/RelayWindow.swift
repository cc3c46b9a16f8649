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
}
