import Synchronization

/// The node-wide state behind `/ready` (docs/operations.md "Health, readiness, metrics"): the
/// last report and when it was taken, whether a check is running and who waits for it, the
/// canary numbers sent and seen on the node's readiness channel, and whether the first
/// heartbeat has written `node:{id}`. Any loop may ask; one check runs at a time per node and
/// its result is reused for `Limits.readinessCacheMillis`, so probes never stampede Redis.
final class ReadinessProbe: Sendable {
    enum Start {
        /// A fresh enough report: answer with it.
        case cached(Readiness.Report)
        /// This caller runs the check and hands the result to `finish`.
        case run
        /// A check is running: the waiter is called when it finishes.
        case wait
    }

    private struct State {
        var report: Readiness.Report?
        var checkedAt: UInt64 = 0
        var running = false
        var startedAt: UInt64 = 0
        var waiters: [@Sendable (Readiness.Report) -> Void] = []
    }

    private let state = Mutex(State())
    private let canarySent = Atomic<UInt64>(0)
    private let canarySeen = Atomic<UInt64>(0)
    private let heartbeat = Atomic<Bool>(false)

    /// A run that has not finished after this is presumed stuck (a dependency that never
    /// answers): the next request starts another, so `/ready` cannot hang for good.
    static let stuckNanos: UInt64 = 5_000_000_000

    /// `now` is monotonic nanoseconds (`MonotonicClock`, the same clock on every loop).
    func begin(now: UInt64, maxAgeNanos: UInt64, waiter: @escaping @Sendable (Readiness.Report) -> Void) -> Start {
        state.withLock { state in
            if let report = state.report, now &- state.checkedAt < maxAgeNanos { return .cached(report) }
            state.waiters.append(waiter)
            if state.running, now &- state.startedAt < Self.stuckNanos { return .wait }
            state.running = true
            state.startedAt = now
            return .run
        }
    }

    /// Stores the report and returns everyone waiting for it (the runner included).
    func finish(_ report: Readiness.Report, now: UInt64) -> [@Sendable (Readiness.Report) -> Void] {
        state.withLock { state in
            state.report = report
            state.checkedAt = now
            state.running = false
            defer { state.waiters.removeAll() }
            return state.waiters
        }
    }

    /// The number to publish as the next canary.
    func nextCanary() -> UInt64 { canarySent.wrappingAdd(1, ordering: .relaxed).newValue }

    /// The subscriber received canary `number` on the node's readiness channel.
    func canaryArrived(_ number: UInt64) { canarySeen.max(number, ordering: .releasing) }

    func hasSeenCanary(_ number: UInt64) -> Bool { canarySeen.load(ordering: .acquiring) >= number }

    /// The first heartbeat wrote `node:{id}`: until then other nodes take this node's routes for
    /// a dead node's, so it must not be ready.
    func heartbeatWritten() { heartbeat.store(true, ordering: .releasing) }

    var hasWrittenHeartbeat: Bool { heartbeat.load(ordering: .acquiring) }
}
