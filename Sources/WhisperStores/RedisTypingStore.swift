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
        let subjects = ChargeSubjects(signal.rateLimit.buckets, user: signal.from)
        let join = StepJoin<TypingOutcome>(steps: 1 + subjects.others.count, prefer: Self.prefer) { [self] result in
            switch result {
            case .failure(let error): completion(.failure(error))
            case .success(let refusal?): completion(.success(refusal))
            case .success(nil): route(signal, minIntervalMillis: minIntervalMillis, completion: completion)
            }
        }
        let call = RedisScriptCall(MessageStepScripts.typingSender, keys: { command in
            command.write(MessageStepScripts.TypingSenderKey.self) { name, command in
                switch name {
                case .peers: keys.peers(signal.from, into: &command)
                }
            }
            subjects.writeKeys(of: nil, keys, into: &command)
        }, arguments: { command in
            command.write(MessageStepScripts.TypingSenderArgument.self) { name, command in
                switch name {
                case .hit: command.append(signal.rateLimit.nonce)
                case .to: command.append(signal.to.string)
                case .peerWindow: command.append(peerWindowMillis)
                }
            }
            subjects.writeLimits(of: nil, into: &command)
        })
        let refusal: (Int64) -> TypingOutcome? = { status in status == 1 ? .notPeer : nil }
        redis.evalScript(call, reading: { join.step(RedisMessageStore.charged($0, limited: TypingOutcome.rateLimited, other: refusal)) })
        for subject in subjects.others {
            RedisMessageStore.chargeSubject(redis, keys, subject, of: subjects, nonce: signal.rateLimit.nonce, group: nil,
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
