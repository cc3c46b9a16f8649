import WhisperOps

/// An open loop's schedule: send k is due at `window.start + k / rate`, whatever the server
/// answered, and counts as sent at that time (no coordinated omission).
struct OpenLoop {
    private let perNanosecond: Double
    /// Sends issued so far (skipped ones included).
    private(set) var issued: UInt64 = 0

    init(rate: Double) { perNanosecond = rate / 1e9 }

    /// Hands `send(k, intended)` every send due by `now` and before `window.windowEnd`, in
    /// order, then says when to come back: the next send's own time (at most 1 ms away, not a
    /// fixed 1 ms tick, whose lateness — 0.5 ms on average — would count as latency), or nil
    /// once the window is over.
    mutating func issueDue(now: UInt64, in window: RelayWindow, _ send: (_ k: UInt64, _ intended: UInt64) -> Void) -> UInt64? {
        guard now >= window.start else { return window.start - now }
        // By `now`, floor(elapsed · rate) + 1 are due. (Without the + 1 every send left one
        // interval late and that interval was counted as latency: 5 ms at 200 msg/s.)
        let due = UInt64(Double(now - window.start) * perNanosecond) + 1
        while issued < due {
            let intended = window.start + UInt64(Double(issued) / perNanosecond)
            guard intended < window.windowEnd else { return nil }
            send(issued, intended)
            issued += 1
        }
        guard now < window.windowEnd else { return nil }
        let next = window.start + UInt64(Double(issued) / perNanosecond)
        return min(next > now ? next - now : 0, 1_000_000)
    }
}
