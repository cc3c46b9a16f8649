import Glibc
import Testing
import WhisperOps

@Suite struct MonotonicClockTests {
    @Test func now_neverGoesBackwards() {
        var previous = MonotonicClock.now()
        for _ in 0..<10_000 {
            let current = MonotonicClock.now()
            #expect(current >= previous)
            previous = current
        }
    }

    @Test func now_advancesByTheTimeSlept() {
        let start = MonotonicClock.now()
        usleep(20_000)
        let elapsed = MonotonicClock.now() - start
        #expect(elapsed >= 20_000_000, "\(elapsed) ns")
        #expect(elapsed < 5_000_000_000, "\(elapsed) ns")
    }
}
