import Testing
@testable import WhisperBench

struct LatencyRecorderTests {
    @Test func percentiles_areInMicroseconds() {
        var recorder = LatencyRecorder()
        for micros in 1...1_000 { recorder.record(nanoseconds: UInt64(micros) * 1_000) }
        let summary = recorder.summary
        #expect(summary.count == 1_000)
        #expect((499...501).contains(summary.p50))
        #expect((989...991).contains(summary.p99))
        #expect(summary.max >= 999 && summary.max <= 1_001)
        #expect(abs(summary.mean - 500.5) < 1)
    }

    @Test func merge_addsShards_andExtremesAreClamped() {
        var a = LatencyRecorder(), b = LatencyRecorder()
        a.record(nanoseconds: 10)  // below 1 µs: counted as 1 µs
        b.record(nanoseconds: UInt64.max)  // beyond 10 min: counted at the top
        a.merge(b)
        #expect(a.count == 2)
        #expect(a.summary.max >= LatencyRecorder.highestMicros * 999 / 1_000)
        #expect(LatencyRecorder().summary == LatencySummary())
    }

    @Test func summaryLine_picksUnits() {
        #expect(LatencySummary.format(850) == "850 µs")
        #expect(LatencySummary.format(12_345) == "12.35 ms")
        #expect(LatencySummary.format(2_500_000) == "2.50 s")
        #expect(LatencySummary().line == "no samples")
    }
}
