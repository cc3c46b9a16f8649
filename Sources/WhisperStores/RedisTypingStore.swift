import WhisperProtocol
import WhisperServices
import WhisperStorage

/// Typing signals in Redis, in one-slot steps (`MessageStepScripts.typingSender`,
/// `.typingRecipient`; issue #27): the sender's step (its TYPING charge, the direct-peer check)
/// and one charge step per other subject (the client's address) in one round trip, then the
/// recipient's step (block check, per-pair throttle, route), then the frame written here or
/// published to the socket's node. A signal is never kept: a step cut off loses one typing
/// indicator, which the next keystroke sends again.
package final class RedisTypingStore: TypingStore {
    private let redis: RedisClient
    private let keys: RedisKeys
    private let router: RedisRouter
    private let peerWindowMillis: Int64

    package init(redis: RedisClient, keys: RedisKeys, node: String, limits: Limits) {
        self.redis = redis
        self.keys = keys
        self.router = RedisRouter(redis: redis, keys: keys, node: node, limits: limits)
        self.peerWindowMillis = limits.directPeerWindowSeconds * 1000
    }

    package func relay(_ signal: TypingSignal, minIntervalMillis: Int64, completion: @escaping StoreCompletion<TypingOutcome>) {
        let subjects = Dictionary(grouping: signal.rateLimit.buckets) { RedisKeys.rateLimitTag($0.subject) }
        let others = subjects.filter { $0.key != signal.from.string }
        let join = StepJoin<TypingOutcome>(steps: 1 + others.count, prefer: Self.prefer) { [self] result in
            switch result {
            case .failure(let error): completion(.failure(error))
            case .success(let refusal?): completion(.success(refusal))
            case .success(nil): route(signal, minIntervalMillis: minIntervalMillis, completion: completion)
            }
        }
        let senderLogs = subjects[signal.from.string] ?? []
        let call = RedisScriptCall(MessageStepScripts.typingSender, keys: { (name: MessageStepScripts.TypingSenderKey) in
            switch name {
            case .peers: keys.peers(signal.from)
            }
        }, arguments: { (name: MessageStepScripts.TypingSenderArgument) in
            switch name {
            case .hit: Array(signal.rateLimit.nonce.utf8)
            case .to: Array(signal.to.string.utf8)
            case .peerWindow: RedisMessageStore.text(peerWindowMillis)
            }
        }, moreKeys: keys.rateLimits(senderLogs), moreArguments: RedisRateLimitStore.limitArguments(senderLogs))
        let refusal: (Int64) -> TypingOutcome? = { status in status == 1 ? .notPeer : nil }
        redis.evalScript(call) { join.step(RedisMessageStore.charged($0, limited: TypingOutcome.rateLimited, other: refusal)) }
        for buckets in others.values {
            RedisMessageStore.chargeSubject(redis, keys, buckets: buckets, nonce: signal.rateLimit.nonce, mark: nil,
                                            markTTLMillis: 0) {
                join.step(RedisMessageStore.charged($0, limited: TypingOutcome.rateLimited))
            }
        }
    }

    /// Of two refusals: the rate limit's (the client is told to wait), the longest wait first.
    private static func prefer(_ one: TypingOutcome, _ other: TypingOutcome) -> TypingOutcome {
        switch (one, other) {
        case (.rateLimited(let a), .rateLimited(let b)): a >= b ? one : other
        case (.rateLimited, _): one
        default: other
        }
    }

    private func route(_ signal: TypingSignal, minIntervalMillis: Int64, completion: @escaping StoreCompletion<TypingOutcome>) {
        let call = RedisScriptCall(MessageStepScripts.typingRecipient, keys: { (name: MessageStepScripts.TypingRecipientKey) in
            switch name {
            case .blocked: keys.blocked(signal.to)
            case .typing: keys.typing(from: signal.from, to: signal.to)
            case .route: keys.route(signal.to)
            }
        }, arguments: { (name: MessageStepScripts.TypingRecipientArgument) in
            switch name {
            case .from: Array(signal.from.string.utf8)
            case .minInterval: RedisMessageStore.text(minIntervalMillis)
            }
        })
        redis.evalScript(call) { [router] result in
            // The route's text, or why the signal was dropped.
            let answer = RedisReplies.tagged(result) { status, items -> (route: String?, dropped: TypingOutcome?)? in
                switch status {
                case 4: return (nil, .blocked)
                case 2: return (nil, .throttled)
                default: return items.count == 2 ? items[1].string.map { ($0, nil) } : nil
                }
            }
            switch answer {
            case .failure(let error): completion(.failure(error))
            case .success((_, let dropped?)): completion(.success(dropped))
            case .success((let text?, nil)):
                guard let routed = router.local(text) else { return completion(.failure(.unexpectedReply(text))) }
                guard let remote = routed.remote else { return completion(.success(.relayed(routed.routing ?? .offline))) }
                router.publish(signal.frame, to: signal.to, at: remote, kind: "s") { received in
                    completion(.success(.relayed(received ? .remote : .offline)))
                }
            case .success((nil, nil)): completion(.failure(.unexpectedReply("typing: no route, no reason")))
            }
        }
    }
}
