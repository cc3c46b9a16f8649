import Testing
import WhisperOps

@Suite struct WhisperMetricsTests {
    static let contractNames = [
        "whisper_ws_connections", "whisper_ws_authenticated_connections", "whisper_messages_accepted_total",
        "whisper_messages_delivered_total", "whisper_pending_messages", "whisper_routing_latency_seconds",
        "whisper_errors_total", "whisper_push_total", "whisper_call_setup_total", "whisper_rate_limited_total",
        "whisper_http_requests_total", "whisper_ws_slow_consumer_disconnects_total",
        "whisper_connections_refused_total",
        "whisper_ed25519_verify_seconds",
        "whisper_attachments_total", "whisper_build_info",
        "process_cpu_seconds_total", "process_resident_memory_bytes", "process_virtual_memory_bytes",
        "process_open_fds", "process_max_fds", "process_start_time_seconds",
    ]

    @Test func everyContractMetric_isExposedWithHelpAndType() {
        let text = WhisperMetrics().registry.exposition()
        for name in Self.contractNames {
            #expect(text.contains("# HELP \(name) "), "\(name) HELP")
            #expect(text.contains("# TYPE \(name) "), "\(name) TYPE")
        }
    }

    @Test func closedLabelSets_existAtZeroFromTheStart() {
        let text = WhisperMetrics(includeProcessMetrics: false).registry.exposition()
        #expect(text.contains(#"whisper_messages_delivered_total{path="live"} 0"#))
        #expect(text.contains(#"whisper_messages_delivered_total{path="pending"} 0"#))
        #expect(text.contains(#"whisper_rate_limited_total{action="presign"} 0"#))
        #expect(text.contains(#"whisper_attachments_total{event="deleted"} 0"#))
        #expect(text.contains(#"whisper_connections_refused_total{reason="per_ip"} 0"#))
        #expect(text.contains(#"whisper_push_oauth_failures_total{provider="fcm"} 0"#))
        #expect(text.contains(#"whisper_ed25519_verify_seconds_bucket{le="1e-05"} 0"#))
    }

    @Test func updates_showUpInTheExposition() {
        let metrics = WhisperMetrics(includeProcessMetrics: false)
        metrics.wsConnections.increment()
        metrics.push.labels("apns", "ok").increment()
        metrics.httpRequests.labels("admin", "200").increment(by: 3)
        metrics.routingLatency.observe(0.003)
        let text = metrics.registry.exposition()
        #expect(text.contains("whisper_ws_connections 1\n"))
        #expect(text.contains(#"whisper_push_total{provider="apns",result="ok"} 1"#))
        #expect(text.contains(#"whisper_http_requests_total{listener="admin",status="200"} 3"#))
        #expect(text.contains(#"whisper_routing_latency_seconds_bucket{le="0.005"} 1"#))
        #expect(text.contains("whisper_routing_latency_seconds_count 1\n"))
    }

    @Test func buildInfo_isOneSeriesAt1_labelledWithTheBuild() {
        let build = BuildInfo(version: "1.2.3", commit: "0123abcd-dirty", date: "2026-11-26T19:30:00Z")
        let text = WhisperMetrics(includeProcessMetrics: false, build: build).registry.exposition()
        #expect(text.contains("# TYPE whisper_build_info gauge\n"
            + #"whisper_build_info{version="1.2.3",commit="0123abcd-dirty",build_date="2026-11-26T19:30:00Z"} 1"# + "\n"))
    }

    @Test func constructingTwiceOnOneRegistry_sharesTheMetrics() {
        let registry = MetricsRegistry()
        let first = WhisperMetrics(registry: registry, includeProcessMetrics: false)
        let second = WhisperMetrics(registry: registry, includeProcessMetrics: false)
        #expect(first.errors === second.errors)
    }
}
