import Dispatch
import Testing
import WhisperOps

@Suite struct MetricsRegistryTests {
    @Test func exposition_matchesGoldenText() {
        let registry = MetricsRegistry()
        let requests = registry.counter("test_requests_total", help: "Requests.")
        let errors = registry.counter("test_errors_total", help: "Errors by code.", labelNames: ["code"])
        let connections = registry.gauge("test_connections", help: "Open connections.")
        let latency = registry.histogram("test_latency_seconds", help: "Latency.", buckets: [0.25, 0.5, 1])
        requests.increment()
        requests.increment(by: 2)
        errors.labels("INVALID_PAYLOAD").increment()
        errors.labels("AUTH_FAILED").increment(by: 2)
        connections.increment(by: 5)
        connections.decrement()
        for value in [0.25, 0.5, 0.5, 1, 2] { latency.observe(value) }

        #expect(registry.exposition() == """
            # HELP test_connections Open connections.
            # TYPE test_connections gauge
            test_connections 4
            # HELP test_errors_total Errors by code.
            # TYPE test_errors_total counter
            test_errors_total{code="AUTH_FAILED"} 2
            test_errors_total{code="INVALID_PAYLOAD"} 1
            # HELP test_latency_seconds Latency.
            # TYPE test_latency_seconds histogram
            test_latency_seconds_bucket{le="0.25"} 1
            test_latency_seconds_bucket{le="0.5"} 3
            test_latency_seconds_bucket{le="1"} 4
            test_latency_seconds_bucket{le="+Inf"} 5
            test_latency_seconds_sum 4.25
            test_latency_seconds_count 5
            # HELP test_requests_total Requests.
            # TYPE test_requests_total counter
            test_requests_total 3

            """)
    }

    @Test func labelledHistogram_putsLeLastAndKeepsSeriesSorted() {
        let registry = MetricsRegistry()
        let family = registry.histogram("rpc_seconds", help: "RPC.", labelNames: ["method"], buckets: [0.001])
        family.labels("b").observe(0.0005)
        family.labels("a").observe(5)
        #expect(registry.exposition() == """
            # HELP rpc_seconds RPC.
            # TYPE rpc_seconds histogram
            rpc_seconds_bucket{method="a",le="0.001"} 0
            rpc_seconds_bucket{method="a",le="+Inf"} 1
            rpc_seconds_sum{method="a"} 5
            rpc_seconds_count{method="a"} 1
            rpc_seconds_bucket{method="b",le="0.001"} 1
            rpc_seconds_bucket{method="b",le="+Inf"} 1
            rpc_seconds_sum{method="b"} 0.0005
            rpc_seconds_count{method="b"} 1

            """)
    }

    @Test func labelValuesAndHelp_areEscaped() {
        let registry = MetricsRegistry()
        let family = registry.counter("esc_total", help: "Back\\slash and\nnewline.", labelNames: ["a", "b"])
        family.labels("q\"uote", "back\\slash\nnl").increment()
        #expect(registry.exposition() == """
            # HELP esc_total Back\\\\slash and\\nnewline.
            # TYPE esc_total counter
            esc_total{a="q\\"uote",b="back\\\\slash\\nnl"} 1

            """)
    }

    @Test func sameLabelValues_returnTheSameChild() {
        let registry = MetricsRegistry()
        let family = registry.counter("x_total", help: "X.", labelNames: ["path"])
        family.labels("live").increment()
        family.labels("live").increment()
        #expect(family.labels("live") === family.labels("live"))
        #expect(family.labels("live").value == 2)
    }

    @Test func reRegisteringTheSameMetric_returnsTheExistingOne() {
        let registry = MetricsRegistry()
        let first = registry.counter("dup_total", help: "Dup.")
        first.increment()
        #expect(registry.counter("dup_total", help: "Dup.") === first)
        #expect(registry.histogram("h", help: "H.", buckets: [1]) === registry.histogram("h", help: "H.", buckets: [1]))
    }

    @Test func labelledFamilyWithNoChildren_exposesOnlyHeaders() {
        let registry = MetricsRegistry()
        _ = registry.counter("none_total", help: "None.", labelNames: ["code"])
        #expect(registry.exposition() == "# HELP none_total None.\n# TYPE none_total counter\n")
    }

    @Test func exposition_isStableAcrossScrapes() {
        let registry = MetricsRegistry()
        let family = registry.counter("s_total", help: "S.", labelNames: ["k"])
        for key in ["z", "a", "m", "b"] { family.labels(key).increment() }
        #expect(registry.exposition() == registry.exposition())
    }

    @Test func collectors_areMergedInNameOrder() {
        struct Fixed: MetricsCollector {
            func collect() -> [CollectedMetric] {
                [CollectedMetric(name: "b_value", help: "B.", kind: .gauge, value: 1.5)]
            }
        }
        let registry = MetricsRegistry()
        registry.counter("a_total", help: "A.").increment()
        _ = registry.gauge("c_value", help: "C.")
        registry.register(collector: Fixed())
        #expect(registry.exposition() == """
            # HELP a_total A.
            # TYPE a_total counter
            a_total 1
            # HELP b_value B.
            # TYPE b_value gauge
            b_value 1.5
            # HELP c_value C.
            # TYPE c_value gauge
            c_value 0

            """)
    }

    @Test func concurrentIncrements_sumExactly() {
        let registry = MetricsRegistry()
        let counter = registry.counter("c_total", help: "C.")
        let family = registry.counter("f_total", help: "F.", labelNames: ["t"])
        let gauge = registry.gauge("g", help: "G.")
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            let child = family.labels(String(thread % 2))
            for _ in 0..<50_000 {
                counter.increment()
                child.increment()
                gauge.increment()
                gauge.decrement()
            }
        }
        #expect(counter.value == 400_000)
        #expect(family.labels("0").value + family.labels("1").value == 400_000)
        #expect(gauge.value == 0)
    }
}
