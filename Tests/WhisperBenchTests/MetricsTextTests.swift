import Testing
@testable import WhisperBench

struct MetricsTextTests {
    private let text = """
    # HELP whisper_ed25519_verify_seconds Time spent verifying one Ed25519 signature.
    # TYPE whisper_ed25519_verify_seconds histogram
    whisper_ed25519_verify_seconds_bucket{le="5e-05"} 10
    whisper_ed25519_verify_seconds_bucket{le="+Inf"} 12
    whisper_ed25519_verify_seconds_sum 0.000744
    whisper_ed25519_verify_seconds_count 12
    whisper_errors_total{code="AUTH_FAILED"} 2
    process_cpu_seconds_total 12.5 1763820000000
    """

    @Test func value_picksTheExactSeries() {
        #expect(MetricsText.value(of: "whisper_ed25519_verify_seconds_sum", in: text) == 0.000744)
        #expect(MetricsText.value(of: "whisper_ed25519_verify_seconds_count", in: text) == 12)
        #expect(MetricsText.value(of: #"whisper_errors_total{code="AUTH_FAILED"}"#, in: text) == 2)
        #expect(MetricsText.value(of: #"whisper_ed25519_verify_seconds_bucket{le="+Inf"}"#, in: text) == 12)
    }

    @Test func timestamp_isIgnored_andPrefixesDoNotMatch() {
        #expect(MetricsText.value(of: "process_cpu_seconds_total", in: text) == 12.5)
        #expect(MetricsText.value(of: "whisper_ed25519_verify_seconds", in: text) == nil)
        #expect(MetricsText.value(of: "whisper_errors_total", in: text) == nil)
        #expect(MetricsText.value(of: "absent", in: text) == nil)
    }

    @Test func specialValues_parse() {
        #expect(MetricsText.parseValue("+Inf") == .infinity)
        #expect(MetricsText.parseValue("1.5e-05") == 0.000015)
        #expect(MetricsText.parseValue("NaN")?.isNaN == true)
        #expect(MetricsText.parseValue("x") == nil)
    }
}
