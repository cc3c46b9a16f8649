import Testing
@testable import WhisperBench

struct CPUSeriesTests {
    @Test func delta_aThreadThatExited_takesNothingAway_andANewOneCountsFromZero() {
        let before: [String: CPUSeries.Counters] = ["10": (5_000, 7), "11": (9_000_000, 40)]
        // 11 exited (its 9 ms of CPU must not make the interval negative); 12 was born.
        let after: [String: CPUSeries.Counters] = ["10": (8_000, 9), "12": (1_500, 2)]
        let delta = CPUSeries.delta(before, after)
        #expect(delta.cpuNanos == 3_000 + 1_500)
        #expect(delta.switches == 2 + 2)
    }

    @Test func delta_aReusedThreadIdWithSmallerCounters_countsNothingForThatInterval() {
        let delta = CPUSeries.delta(["10": (9_000, 9)], ["10": (100, 1)])
        #expect(delta.cpuNanos == 0 && delta.switches == 0)
    }
}
