/// Runs jobs with at most `limit` in flight, in order — how the benchmark paces connects and
/// logins so that it does not overflow the server's accept backlog with a SYN storm. A job
/// calls its `done` exactly once (extra calls are ignored). Loop thread only.
final class JobQueue {
    typealias Job = (_ done: @escaping () -> Void) -> Void

    private let limit: Int
    private var waiting: [Job] = []
    private var nextWaiting = 0
    private var running = 0
    private var drainedWaiters: [() -> Void] = []

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    var isDrained: Bool { running == 0 && nextWaiting == waiting.count }

    func add(_ job: @escaping Job) {
        waiting.append(job)
        startMore()
    }

    /// Calls `body` once every job added so far (and any added meanwhile) has finished.
    func whenDrained(_ body: @escaping () -> Void) {
        if isDrained { return body() }
        drainedWaiters.append(body)
    }

    private func startMore() {
        while running < limit, nextWaiting < waiting.count {
            let job = waiting[nextWaiting]
            waiting[nextWaiting] = { _ in }  // release what the job captured
            nextWaiting += 1
            running += 1
            var finished = false
            job { [self] in
                guard !finished else { return }
                finished = true
                running -= 1
                startMore()
            }
        }
        if isDrained {
            waiting = []
            nextWaiting = 0
            let waiters = drainedWaiters
            drainedWaiters = []
            for waiter in waiters { waiter() }
        }
    }
}
