import WhisperOps
import WhisperProtocol

/// Typing indicators (docs/protocol.md "Typing"): a hint between two people who are talking,
/// worth nothing a moment later, so it is never queued and never acknowledged.
///
/// `typing`, top to bottom (the payload was validated and the session checked by the gateway):
/// 1. to oneself → dropped;
/// 2. one atomic store step: the TYPING rate limit per identity and IP → else `RATE_LIMITED`;
///    `to` a direct peer of the sender → else dropped; `to` has not blocked the sender → else
///    dropped; at most one signal per (from, to) per 2 s → else dropped; then routed to `to`'s live socket on any node, or dropped when
///    `to` is offline.
/// The caller answers nothing on success or drop: a client cannot tell a dropped signal from a
/// delivered one, so typing cannot probe who talks to whom or who is online.
public final class TypingService {
    public typealias Completion<T> = (Result<T, ServiceError>) -> Void

    private let limits: Limits
    private let store: TypingStore
    private let router: MessageRouter
    private let rateLimiter: RateLimiter

    public init(limits: Limits, store: TypingStore, router: MessageRouter, rateLimiter: RateLimiter) {
        self.limits = limits
        self.store = store
        self.router = router
        self.rateLimiter = rateLimiter
    }

    public func typing(_ signal: TypingPayload, session: SessionRecord, client: ClientRef,
                       completion: @escaping Completion<TypingOutcome?>) {
        guard signal.to != session.whisperId else { return completion(.success(nil)) }
        let charge = rateLimiter.charge(.typing, subjects: [.identity(session.whisperId.string), .ip(client.ip)])
        let relayed = TypingSignal(from: session.whisperId, to: signal.to, frame: signal.forwardedFrame(from: session.whisperId),
                                   rateLimit: charge)
        store.relay(relayed, minIntervalMillis: limits.typingMinIntervalMillis) { [router, rateLimiter] result in
            switch result {
            case .failure(let error):
                completion(.failure(.storage(error)))
            case .success(.rateLimited(let retryAfterMs)):
                rateLimiter.refused(.typing)
                completion(.failure(.rateLimited(retryAfterMs: retryAfterMs)))
            case .success(let outcome):
                if case .relayed(.local(let route)) = outcome {
                    router.deliver(relayed.frame, to: relayed.to, at: route, kind: .signal, receivedAtMicros: 0)
                }
                completion(.success(outcome))
            }
        }
    }
}
