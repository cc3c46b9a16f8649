#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import CLinux
import Synchronization
import WhisperOps

/// One epoll reactor on one thread. Everything registered with a loop — descriptors,
/// timers, connections — is touched only on that loop's thread; the one thing that
/// crosses threads is `execute(_:)`, which pushes onto a lock-free queue and wakes the
/// loop through an eventfd.
///
/// An iteration: wait for readiness or the next timer, dispatch I/O, run due timers, run
/// handed-off tasks, then the `beforeSleep` hooks (connections flush their output there,
/// so many writes produced in one iteration leave in one syscall).
public final class EventLoop: @unchecked Sendable {
    public let index: Int
    private let epfd: Int32
    private let wakeFD: Int32
    private let tasks = TaskQueue()
    private let wakePending = Atomic<Bool>(false)
    private let stopRequested = Atomic<Bool>(false)
    private let threadID = Atomic<UInt>(0)

    // Loop-thread state.
    private var handlers: [UInt64: IOHandler] = [:]
    private var nextToken: UInt64 = 1
    private var timers = TimerHeap()
    private var beforeSleepHooks: [() -> Void] = []
    private var deferred: [() -> Void] = []
    private var flushQueue: [Connection] = []
    /// The batch being run, swapped with its queue: work queued while a batch runs goes to the
    /// (empty) queue, and neither array is copied or reallocated per iteration.
    private var deferredBatch: [() -> Void] = []
    private var flushBatch: [Connection] = []
    /// One read buffer per loop, shared by its connections: an idle connection holds no
    /// input memory of its own; parsers copy only what they must keep.
    let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 16)
    /// Monotonic time in nanoseconds, read once per iteration.
    public private(set) var now: UInt64 = MonotonicClock.now()

    public init(index: Int) throws(SystemError) {
        self.index = index
        let ep = clinux_epoll_create()
        guard ep >= 0 else { throw SystemError.last("epoll_create1") }
        let wake = clinux_eventfd()
        guard wake >= 0 else {
            Syscall.close(ep)
            throw SystemError.last("eventfd")
        }
        epfd = ep
        wakeFD = wake
        guard clinux_epoll_ctl(ep, CLINUX_EPOLL_CTL_ADD, wake, CLINUX_EPOLLIN, 0) == 0 else {
            Syscall.close(ep)
            Syscall.close(wake)
            throw SystemError.last("epoll_ctl(eventfd)")
        }
    }

    deinit {
        readBuffer.deallocate()
        Syscall.close(epfd)
        Syscall.close(wakeFD)
    }

    /// True when called on this loop's thread.
    public var inEventLoop: Bool {
        threadID.load(ordering: .relaxed) == UInt(bitPattern: Int(bitPattern: pthread_self()))
    }

    // MARK: Cross-thread

    /// Runs `task` on the loop's thread. Safe from any thread; wake-ups are coalesced so a
    /// burst of hand-offs costs one eventfd write.
    public func execute(_ task: @escaping @Sendable () -> Void) {
        tasks.push(task)
        if !wakePending.exchange(true, ordering: .acquiringAndReleasing) {
            _ = clinux_eventfd_signal(wakeFD)
        }
    }

    /// Asks the loop to return from `run()` after the current iteration.
    public func stop() {
        stopRequested.store(true, ordering: .releasing)
        execute {}
    }

    // MARK: Loop-thread API

    public func register(_ fd: Int32, interest: IOEvents, handler: IOHandler) throws(SystemError) -> IORegistration {
        let token = nextToken
        nextToken &+= 1
        guard clinux_epoll_ctl(epfd, CLINUX_EPOLL_CTL_ADD, fd, interest.rawValue, token) == 0 else {
            throw SystemError.last("epoll_ctl(ADD)")
        }
        handlers[token] = handler
        return IORegistration(token: token, fd: fd)
    }

    public func update(_ registration: IORegistration, interest: IOEvents) throws(SystemError) {
        guard clinux_epoll_ctl(epfd, CLINUX_EPOLL_CTL_MOD, registration.fd, interest.rawValue, registration.token) == 0 else {
            throw SystemError.last("epoll_ctl(MOD)")
        }
    }

    /// Removes the descriptor from epoll before it is closed; pending events for it in the
    /// current batch are dropped.
    public func deregister(_ registration: IORegistration) {
        _ = clinux_epoll_ctl(epfd, CLINUX_EPOLL_CTL_DEL, registration.fd, 0, registration.token)
        handlers[registration.token] = nil
    }

    @discardableResult
    public func schedule(afterNanoseconds delay: UInt64, _ callback: @escaping () -> Void) -> TimerID {
        timers.schedule(deadline: MonotonicClock.now() &+ delay, callback)
    }

    public func cancel(_ timer: TimerID) {
        timers.cancel(timer)
    }

    /// Runs `hook` before every sleep, after all I/O, timers and tasks of the iteration.
    public func addBeforeSleep(_ hook: @escaping () -> Void) {
        beforeSleepHooks.append(hook)
    }

    func enqueueFlush(_ connection: Connection) {
        flushQueue.append(connection)
    }

    /// Runs `work` at the end of this iteration: how a connection is freed from inside its
    /// own callback without pulling the object out from under the caller.
    public func deferToEndOfIteration(_ work: @escaping () -> Void) {
        deferred.append(work)
    }

    // MARK: Running

    /// Runs the loop on the calling thread until `stop()`.
    public func run() {
        threadID.store(UInt(bitPattern: Int(bitPattern: pthread_self())), ordering: .relaxed)
        let capacity = 256
        let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: capacity)
        defer { events.deallocate() }
        while !stopRequested.load(ordering: .acquiring) {
            let count = clinux_epoll_wait(epfd, events, Int32(capacity), waitTimeoutNanos())
            now = MonotonicClock.now()
            if count > 0 {
                for i in 0..<Int(count) {
                    let token = clinux_epoll_event_token(events + i)
                    let mask = IOEvents(rawValue: clinux_epoll_event_mask(events + i))
                    if token == 0 {
                        drainTasks()
                    } else if let handler = handlers[token] {
                        handler.ioReady(mask)
                    }
                }
            }
            for callback in timers.popDue(now: now) { callback() }
            runQueuedTasks()
            runDeferred()
            for hook in beforeSleepHooks { hook() }
            flushConnections()
            runDeferred()
        }
        drainTasks()
        runDeferred()
    }

    /// Nanoseconds, not milliseconds (`clinux_epoll_wait` uses `epoll_pwait2`): a timer due in
    /// 1 ms fires after ~1 ms, not after 1–2 ms, which a load generator's send tick and the
    /// latency it measures would otherwise carry (docs/benchmarks.md).
    private func waitTimeoutNanos() -> Int64 {
        guard deferred.isEmpty, flushQueue.isEmpty else { return 0 }
        guard let deadline = timers.nextDeadline() else { return -1 }
        let current = MonotonicClock.now()
        if deadline <= current { return 0 }
        return Int64(clamping: deadline - current)
    }

    private func flushConnections() {
        while !flushQueue.isEmpty {
            swap(&flushQueue, &flushBatch)
            for connection in flushBatch { connection.flush() }
            flushBatch.removeAll(keepingCapacity: true)
        }
    }

    /// The wake-up token fired. Invariant: while `wakePending` is true, an eventfd write is
    /// readable or about to be written, so the loop cannot sleep on queued work. Hence the
    /// order: read the eventfd first, then clear the flag — a producer that still saw `true`
    /// in between linked its node before its exchange, which our exchange (a full barrier)
    /// follows, so the pops below see it; one that sees `false` writes the eventfd again.
    private func drainTasks() {
        _ = clinux_eventfd_drain(wakeFD)
        _ = wakePending.exchange(false, ordering: .acquiringAndReleasing)
        runQueuedTasks()
    }

    /// Runs what other threads queued, without touching the eventfd or the flag: called once
    /// per iteration, where a read that usually finds nothing would cost a syscall. Work
    /// queued after the last pop was announced by an eventfd write (see `drainTasks`), so the
    /// next `epoll_wait` returns at once.
    private func runQueuedTasks() {
        while let task = tasks.pop() { task() }
    }

    private func runDeferred() {
        while !deferred.isEmpty {
            swap(&deferred, &deferredBatch)
            for item in deferredBatch { item() }
            deferredBatch.removeAll(keepingCapacity: true)
        }
    }
}
