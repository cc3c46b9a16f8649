/// Exponential reconnect backoff with jitter: `initial`, doubling up to `maximum`, each
/// delay drawn from [d/2, d] so that nodes which lost the same server at the same moment
/// do not reconnect in lockstep.
struct Backoff: Sendable {
    let initialNanos: UInt64
    let maximumNanos: UInt64
    private var currentNanos: UInt64

    init(initialNanos: UInt64, maximumNanos: UInt64) {
        self.initialNanos = max(1, initialNanos)
        self.maximumNanos = max(self.initialNanos, maximumNanos)
        currentNanos = self.initialNanos
    }

    /// The delay before the next attempt; doubles the base for the attempt after.
    mutating func next() -> UInt64 {
        let base = currentNanos
        currentNanos = min(maximumNanos, base.multipliedReportingOverflow(by: 2).partialValue)
        let half = base / 2
        return half + UInt64.random(in: 0...(base - half))
    }

    mutating func reset() {
        currentNanos = initialNanos
    }
}
