import WhisperOps

/// Rate limits for any action (docs/operations.md "Rate limits"): one call charges the action against each
/// given subject (the client IP and, when known, the whisperId) with the configured
/// `"<count>/<seconds>"` limits, all or nothing, and counts refusals in
/// `whisper_rate_limited_total{action}`.
///
/// The algorithm lives in the store (a sliding-window log in Redis, see `RedisRateLimitStore`):
/// it is exact — at most `count` hits in any window of `seconds` — which GCRA and token
/// buckets are not (both admit up to 2·count−1 hits in some window after a full burst).
public final class RateLimiter {
    private let limits: RateLimits
    private let store: RateLimitStore
    /// Hits are named `<random prefix>-<counter>`: unique across nodes and loops without a
    /// CSPRNG call (a `getrandom` syscall) per hit.
    private let hitPrefix: String
    private var hitCounter: UInt64 = 0
    private let refused: [RateLimitAction: Counter]

    public init(limits: RateLimits, store: RateLimitStore, random: RandomSource = SodiumRandom(),
                metrics: WhisperMetrics? = nil) {
        self.limits = limits
        self.store = store
        self.hitPrefix = random.hex(8) + "-"
        var refused: [RateLimitAction: Counter] = [:]
        if let metrics {
            for action in RateLimitAction.allCases { refused[action] = metrics.rateLimited.labels(action.rawValue) }
        }
        self.refused = refused
    }

    /// The buckets one `action` hit charges, for a store that checks them inside a larger
    /// atomic step (the message accept script) instead of a round trip of their own. Report
    /// a refusal with `refused(_:)`.
    public func charge(_ action: RateLimitAction, subjects: [RateLimitSubject]) -> RateLimitCharge {
        RateLimitCharge(buckets: subjects.map { subject in
            RateLimitBucket(action: action, subject: subject.key, limit: limits[action, subject.scope])
        }, nonce: nextHitName())
    }

    private func nextHitName() -> String {
        hitCounter &+= 1
        return hitPrefix + String(hitCounter)
    }

    /// Counts a refusal decided by a store (`whisper_rate_limited_total{action}`).
    public func refused(_ action: RateLimitAction) {
        refused[action]?.increment()
    }

    /// Charges one `action` hit to each subject. `.failure(.rateLimited)` when any limit is
    /// exhausted (nothing is charged then), `.failure(.storage)` when the store failed.
    public func check(_ action: RateLimitAction, subjects: [RateLimitSubject],
                      completion: @escaping (Result<Void, ServiceError>) -> Void) {
        let charge = charge(action, subjects: subjects)
        store.hit(charge.buckets, nonce: charge.nonce) { [refused] result in
            switch result {
            case .success(.allowed):
                completion(.success(()))
            case .success(.limited(let retryAfterMs)):
                refused[action]?.increment()
                completion(.failure(.rateLimited(retryAfterMs: max(1, retryAfterMs))))
            case .failure(let error):
                completion(.failure(.storage(error)))
            }
        }
    }
}
