#if canImport(Glibc)
import Glibc
#endif
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

    @Test func schedstat_parsesCPUNanosAndTimeslices() {
        let parsed = ThreadStatReader.parse(ArraySlice("1234567 89000 42\n".utf8))
        #expect(parsed?.cpuNanos == 1_234_567 && parsed?.switches == 42)
        #expect(ThreadStatReader.parse(ArraySlice("1234567 89000\n".utf8)) == nil)
        #expect(ThreadStatReader.parse(ArraySlice("x y z\n".utf8)) == nil)
    }

    @Test func reader_seesThisProcessesThreads_andTheirCPU() {
        var reader = ThreadStatReader(pid: getpid())
        defer { reader.close() }
        let threads = reader.read()
        #expect(!threads.isEmpty)
        #expect(threads.values.contains { $0.cpuNanos > 0 })
    }

    @Test func procStat_busyIsUserNiceSystemIrqSoftirq_andStealIsTheEighth() {
        let parsed = MachineStatReader.parse(ArraySlice("cpu  100 2 30 9000 5 0 7 11 0 0\ncpu0 1 2 3\n".utf8))
        #expect(parsed?.busy == 100 + 2 + 30 + 0 + 7 && parsed?.steal == 11)
        #expect(MachineStatReader.parse(ArraySlice("cpu0 1 2 3\n".utf8)) == nil)
    }
}
