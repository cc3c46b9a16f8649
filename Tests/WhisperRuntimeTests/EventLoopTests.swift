import Foundation
import Testing
import WhisperOps
import WhisperTesting
@testable import WhisperRuntime

@Suite struct EventLoopTests {
    @Test func execute_runsTasksFromManyThreads_inPerProducerOrder() async throws {
        let group = try EventLoopGroup(threads: 1)
        group.start()
        defer { group.shutdown() }
        let loop = group.loops[0]
        let seen = Box<[Int: [Int]]>([:])
        let producers = 4, perProducer = 5_000
        DispatchQueue.concurrentPerform(iterations: producers) { producer in
            for i in 0..<perProducer {
                loop.execute { seen.update { $0[producer, default: []].append(i) } }
            }
        }
        #expect(await eventually { seen.get.values.reduce(0) { $0 + $1.count } == producers * perProducer })
        for (_, values) in seen.get { #expect(values.elementsEqual(0..<perProducer), "per-producer order broken") }
    }

    /// Ping-pong from several threads makes the loop fall asleep between almost every task,
    /// racing each producer's wake-up against the loop's own task runs. The loop has no
    /// timers, so one lost wake-up would stall a producer for good (caught by the timeout).
    @Test func execute_neverLosesAWakeUp_whenProducersRaceTheSleepingLoop() async throws {
        let group = try EventLoopGroup(threads: 1)
        group.start()
        defer { group.shutdown() }
        let loop = group.loops[0]
        let stalled = Box(0)
        DispatchQueue.concurrentPerform(iterations: 3) { _ in
            for _ in 0..<3_000 {
                let done = DispatchSemaphore(value: 0)
                loop.execute { done.signal() }
                if done.wait(timeout: .now() + 5) == .timedOut {
                    stalled.update { $0 += 1 }
                    return
                }
            }
        }
        #expect(stalled.get == 0)
    }

    @Test func timers_fireInDeadlineOrder_andCancelledOnesNever() async throws {
        let group = try EventLoopGroup(threads: 1)
        group.start()
        defer { group.shutdown() }
        let loop = group.loops[0]
        let fired = Box<[String]>([])
        await onLoop(loop) {
            loop.schedule(afterNanoseconds: 30_000_000) { fired.update { $0.append("c") } }
            loop.schedule(afterNanoseconds: 10_000_000) { fired.update { $0.append("a") } }
            let cancelled = loop.schedule(afterNanoseconds: 15_000_000) { fired.update { $0.append("x") } }
            loop.schedule(afterNanoseconds: 20_000_000) { fired.update { $0.append("b") } }
            loop.cancel(cancelled)
        }
        #expect(await eventually { fired.get.count == 3 })
        try await Task.sleep(nanoseconds: 30_000_000)
        #expect(fired.get == ["a", "b", "c"])
    }

    /// Waits are in nanoseconds (epoll_pwait2) now: a sub-millisecond timer must still never
    /// fire before its deadline.
    @Test func subMillisecondTimers_neverFireEarly() async throws {
        let group = try EventLoopGroup(threads: 1)
        group.start()
        defer { group.shutdown() }
        let loop = group.loops[0]
        let early = Box(0), fired = Box(0)
        await onLoop(loop) {
            for i in 0..<50 {
                let delay = UInt64(50_000 + i * 10_000)
                let due = MonotonicClock.now() + delay
                loop.schedule(afterNanoseconds: delay) {
                    if MonotonicClock.now() < due { early.update { $0 += 1 } }
                    fired.update { $0 += 1 }
                }
            }
        }
        #expect(await eventually { fired.get == 50 })
        #expect(early.get == 0)
    }

    @Test func inEventLoop_isTrueOnlyOnTheLoopThread() async throws {
        let group = try EventLoopGroup(threads: 2)
        group.start()
        defer { group.shutdown() }
        let loop = group.loops[0]
        #expect(!loop.inEventLoop)
        #expect(await onLoop(loop) { loop.inEventLoop })
        #expect(await onLoop(group.loops[1]) { !loop.inEventLoop })
    }
}
