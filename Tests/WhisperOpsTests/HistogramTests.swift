import Dispatch
import Testing
import WhisperOps

@Suite struct HistogramTests {
    func exposedBuckets(_ registry: MetricsRegistry) -> [String] {
        registry.exposition().split(separator: "\n").filter { $0.contains("_bucket") }.map(String.init)
    }

    @Test func observationOnABoundary_countsInThatBucket() {
        let registry = MetricsRegistry()
        let histogram = registry.histogram("b", help: "B.", buckets: [0.001, 0.01, 0.1])
        histogram.observe(0.001)
        histogram.observe(0.01)
        histogram.observe(0.1)
        #expect(exposedBuckets(registry) == [
            #"b_bucket{le="0.001"} 1"#, #"b_bucket{le="0.01"} 2"#, #"b_bucket{le="0.1"} 3"#, #"b_bucket{le="+Inf"} 3"#,
        ])
    }

    @Test func valuesBelowFirstAndAboveLastBucket_landAtTheEnds() {
        let registry = MetricsRegistry()
        let histogram = registry.histogram("e", help: "E.", buckets: [1, 2])
        histogram.observe(-5)
        histogram.observe(.infinity)
        histogram.observe(.nan)
        #expect(exposedBuckets(registry) == [#"e_bucket{le="1"} 1"#, #"e_bucket{le="2"} 1"#, #"e_bucket{le="+Inf"} 2"#])
        #expect(histogram.count == 2)
    }

    @Test func observeNanoseconds_recordsSeconds() {
        let registry = MetricsRegistry()
        let histogram = registry.histogram("n", help: "N.", buckets: [0.00001])
        histogram.observe(nanoseconds: 10_000)
        #expect(histogram.sum == 0.00001)
        #expect(exposedBuckets(registry).first == #"n_bucket{le="1e-05"} 1"#)
    }

    @Test func concurrentObservations_keepCountAndSumExact() {
        let registry = MetricsRegistry()
        let histogram = registry.histogram("c", help: "C.", buckets: [0.5, 1.5])
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for _ in 0..<20_000 { histogram.observe(thread.isMultiple(of: 2) ? 1 : 2) }
        }
        #expect(histogram.count == 160_000)
        #expect(histogram.sum == 240_000)
        #expect(exposedBuckets(registry) == [#"c_bucket{le="0.5"} 0"#, #"c_bucket{le="1.5"} 80000"#, #"c_bucket{le="+Inf"} 160000"#])
    }

    @Test func exponentialBuckets_multiplyFromStart() {
        #expect(Histogram.exponentialBuckets(start: 1, factor: 2, count: 4) == [1, 2, 4, 8])
        #expect(Histogram.exponentialBuckets(start: 1, factor: 2, count: 0) == [])
    }
}
