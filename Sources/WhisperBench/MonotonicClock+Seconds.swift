import WhisperOps

extension MonotonicClock {
    /// Option seconds as nanoseconds of the monotonic clock: negative is 0, and anything past
    /// ~31 years is capped so the conversion cannot trap.
    static func nanoseconds(_ seconds: Double) -> UInt64 {
        seconds <= 0 ? 0 : UInt64(min(seconds, 1e9) * 1e9)
    }
}
