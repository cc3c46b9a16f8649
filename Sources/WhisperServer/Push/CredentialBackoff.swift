/// The provider-wide wait after a failed credential fetch (docs/operations.md "Push"): while
/// FCM's OAuth token endpoint fails, the sender tries it once per wait for all its pushes, not
/// once per queued push. The wait doubles with each failure in a row, half of it random (the
/// same equal jitter as a push's retries, so nodes that failed together do not retry together),
/// capped at `maxMillis`; a success ends it.
struct CredentialBackoff {
    private let baseMillis: Int64
    private let maxMillis: Int64
    private let random: (ClosedRange<Int64>) -> Int64
    /// Failed fetches in a row.
    private(set) var failures = 0
    /// Monotonic time before which no fetch is tried.
    private var notBeforeNanos: UInt64 = 0

    init(baseMillis: Int64, maxMillis: Int64, random: @escaping (ClosedRange<Int64>) -> Int64 = { Int64.random(in: $0) }) {
        self.baseMillis = max(1, baseMillis)
        self.maxMillis = max(self.baseMillis, maxMillis)
        self.random = random
    }

    /// When the next fetch may be tried, while that is still ahead of `nowNanos`; nil: now.
    func waitingUntil(nowNanos: UInt64) -> UInt64? {
        nowNanos < notBeforeNanos ? notBeforeNanos : nil
    }

    mutating func failed(nowNanos: UInt64) {
        failures += 1
        let delay = PushSenderThread.backoffMillis(attempt: failures, baseMillis: baseMillis, maxMillis: maxMillis,
                                                   retryAfterSeconds: 0, random: random)
        notBeforeNanos = nowNanos + UInt64(max(0, delay)) * 1_000_000
    }

    mutating func succeeded() {
        failures = 0
        notBeforeNanos = 0
    }
}
