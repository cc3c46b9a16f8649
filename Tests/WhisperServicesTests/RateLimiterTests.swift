import Testing
import WhisperOps
@testable import WhisperServices

@Suite struct RateLimiterTests {
    @Test func everySubject_isCharged_withItsScopesLimit() throws {
        let store = FakeRateLimits()
        var limits = RateLimits.defaults
        limits[.send, .identity] = RateLimit(count: 5, windowSeconds: 1)
        limits[.send, .ip] = RateLimit(count: 50, windowSeconds: 1)
        let limiter = RateLimiter(limits: limits, store: store, random: SeededRandom(seed: 1))
        var result: Result<Void, ServiceError>?
        limiter.check(.send, subjects: [.identity("WSP-AAAA-AAAA-AAAA"), .ip("::1")]) { result = $0 }
        #expect(throws: Never.self) { try result?.get() }
        #expect(store.charged.first == [
            RateLimitBucket(action: .send, subject: "id:WSP-AAAA-AAAA-AAAA", limit: RateLimit(count: 5, windowSeconds: 1)),
            RateLimitBucket(action: .send, subject: "ip:::1", limit: RateLimit(count: 50, windowSeconds: 1)),
        ])
    }

    @Test func refusal_carriesRetryAfter_atLeast1ms_andCountsByAction() {
        let store = FakeRateLimits()
        let metrics = WhisperMetrics(registry: MetricsRegistry(), includeProcessMetrics: false)
        let limiter = RateLimiter(limits: .defaults, store: store, random: SeededRandom(seed: 1), metrics: metrics)
        store.decision = .limited(retryAfterMs: 0)
        var result: Result<Void, ServiceError>?
        limiter.check(.typing, subjects: [.ip("192.0.2.1")]) { result = $0 }
        #expect(result?.failure == .rateLimited(retryAfterMs: 1))
        #expect(result?.failure?.code == .rateLimited)
        #expect(metrics.rateLimited.labels("typing").value == 1)
        #expect(metrics.rateLimited.labels("register").value == 0)
    }
}
