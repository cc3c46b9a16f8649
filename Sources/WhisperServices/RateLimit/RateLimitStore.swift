/// Shared counters (Redis, so limits hold across nodes).
public protocol RateLimitStore {
    /// Atomically: when every bucket has room, records one hit in each and answers
    /// `.allowed`; otherwise records nothing and answers `.limited` with the longest wait.
    /// `nonce` is unique per call (it names the hit inside the counters).
    func hit(_ buckets: [RateLimitBucket], nonce: String, completion: @escaping StoreCompletion<RateLimitDecision>)
}
