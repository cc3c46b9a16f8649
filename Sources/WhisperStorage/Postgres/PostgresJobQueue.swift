import Dispatch
import Synchronization

/// A unit of work for a pool worker: `run` gets the worker's healthy connection; `fail`
/// is called instead when there is none, when the job waited too long, or at shutdown.
/// Exactly one of the two is called.
struct PostgresJob: Sendable {
    let enqueuedAt: UInt64
    let run: @Sendable (PostgresConnection) -> Void
    let fail: @Sendable (PostgresError) -> Void
}

/// The pool's shared FIFO. A mutex guards the array; a counting semaphore wakes one
/// sleeping worker per job. Bounded: `push` refuses beyond `limit` instead of letting a
/// slow database turn into unbounded memory and latency.
final class PostgresJobQueue: Sendable {
    private struct State {
        var jobs = RingBuffer<PostgresJob>()
        var closed = false
    }

    private let state = Mutex(State())
    private let available = DispatchSemaphore(value: 0)
    private let limit: Int

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Queues `job`, or fails it at once (`.overloaded`, `.poolClosed`).
    func push(_ job: PostgresJob) {
        let refusal: PostgresError? = state.withLock { state in
            if state.closed { return .poolClosed }
            if state.jobs.count >= limit { return .overloaded }
            state.jobs.append(job)
            return nil
        }
        if let refusal {
            job.fail(refusal)
        } else {
            available.signal()
        }
    }

    /// Blocks until a job is available; nil once the queue is closed and drained.
    func next() -> PostgresJob? {
        while true {
            available.wait()
            let outcome: (job: PostgresJob?, closed: Bool) = state.withLock { state in
                (state.jobs.popFirst(), state.closed)
            }
            if let job = outcome.job { return job }
            if outcome.closed { return nil }
        }
    }

    /// Refuses new jobs, fails queued ones with `.poolClosed` and wakes every worker.
    func close(workers: Int) {
        let abandoned: [PostgresJob] = state.withLock { state in
            state.closed = true
            var drained: [PostgresJob] = []
            while let job = state.jobs.popFirst() { drained.append(job) }
            return drained
        }
        for job in abandoned { job.fail(.poolClosed) }
        for _ in 0..<max(1, workers) { available.signal() }
    }
}
