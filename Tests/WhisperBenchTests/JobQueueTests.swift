import Testing
@testable import WhisperBench

struct JobQueueTests {
    @Test func atMostLimitJobsRun_andDrainedFiresOnceAllFinish() {
        let queue = JobQueue(limit: 2)
        var started: [Int] = []
        var finishers: [() -> Void] = []
        for i in 0..<5 {
            queue.add { done in
                started.append(i)
                finishers.append(done)
            }
        }
        var drained = 0
        queue.whenDrained { drained += 1 }
        #expect(started == [0, 1])
        finishers[0]()
        finishers[0]()  // a second call is ignored
        #expect(started == [0, 1, 2])
        for i in 1..<5 { finishers[i]() }
        #expect(started == [0, 1, 2, 3, 4])
        #expect(drained == 1)
        queue.whenDrained { drained += 1 }
        #expect(drained == 2, "an idle queue answers at once")
    }
}
