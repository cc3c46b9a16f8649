/// Milliseconds from configuration to nanoseconds of `MonotonicClock`, capped at 30 days: a
/// huge configured value means "practically never", never an overflow trap or a deadline that
/// wraps around to the past.
func nanoseconds(fromMillis millis: Int, minimum: Int = 0) -> UInt64 {
    let cap = 30 * 24 * 3600 * 1000
    return UInt64(min(cap, max(minimum, millis))) * 1_000_000
}
