import WhisperProtocol
import WhisperServices
import WhisperStorage

/// Call state in Redis (`CallScripts`): one script — one round trip — per signal, per
/// confirmation, per login and per sweep; on a Redis Cluster, steps of one slot each
/// (`CallStepScripts`, `RedisCallStore+Steps.swift`).
package final class RedisCallStore: CallStore {
    /// The `Limits` the scripts take, in their units.
    struct Settings {
        let ringTimeoutMillis: Int64
        let confirmTimeoutMillis: Int64
        /// A ringing call outlives its deadline by this margin, so a sweep that runs late (every
        /// node was down) still finds it; past it the call is simply forgotten.
        let ringingTTLMillis: Int64
        let answeredTTLMillis: Int64
        let endedTTLMillis: Int64
        let eventTTLMillis: Int64
        let maxEvents: Int
        let maxHeldCandidates: Int
        /// Calls ended per sweep; the rest wait for the next one.
        let sweepBatch = 100
        /// In steps (a Redis Cluster, `CallStepScripts`): how long the node that wrote a call's
        /// outbox has to deliver it before a sweep does, and how long a sweep's claim of a call
        /// holds before another node may claim it.
        let outboxGraceMillis: Int64
        let claimLeaseMillis: Int64

        init(_ limits: Limits, outboxGraceMillis: Int64) {
            ringTimeoutMillis = limits.callRingTimeoutSeconds * 1000
            confirmTimeoutMillis = limits.callConfirmTimeoutMillis
            ringingTTLMillis = ringTimeoutMillis + 300_000
            answeredTTLMillis = limits.callAnsweredTTLSeconds * 1000
            endedTTLMillis = limits.callEndedTTLSeconds * 1000
            eventTTLMillis = limits.pendingTTLSeconds * 1000
            maxEvents = limits.maxKeptEventsPerUser
            maxHeldCandidates = limits.maxHeldCallCandidates
            self.outboxGraceMillis = outboxGraceMillis
            claimLeaseMillis = 2 * outboxGraceMillis
        }
    }

    let redis: RedisClient
    let keys: RedisKeys
    let node: String
    let settings: Settings
    /// Routes outside a script (the steps): publishes to another node, keeps events.
    let router: RedisRouter

    /// `outboxGraceMillis`: see `Settings` (shorter in tests).
    package init(redis: RedisClient, keys: RedisKeys, node: String, limits: Limits, outboxGraceMillis: Int64 = 5_000) {
        self.redis = redis
        self.keys = keys
        self.node = node
        self.settings = Settings(limits, outboxGraceMillis: outboxGraceMillis)
        self.router = RedisRouter(redis: redis, keys: keys, node: node, limits: limits)
    }

    /// This node and the routing prefixes, as the scripts take them.
    private var routing: [[UInt8]] { keys.routeArguments(node: node) }

    package func initiate(_ offer: CallOffer, completion: @escaping StoreCompletion<CallStoreOutcome>) {
        if redis.isCluster { return initiateInSteps(offer, completion: completion) }
        let call = RedisScriptCall(CallScripts.initiate, keys: { (name: CallScripts.InitiateKey) in
            switch name {
            case .call: keys.call(offer.callId)
            case .route: keys.route(offer.callee)
            case .deadlines: keys.callDeadlines
            case .held: keys.heldCalls(offer.callee)
            case .blocked: keys.blocked(offer.callee)
            case .confirmDeadlines: keys.callConfirmDeadlines
            }
        }, arguments: { (name: CallScripts.InitiateArgument) in
            switch name {
            case .caller: Array(offer.caller.string.utf8)
            case .callee: Array(offer.callee.string.utf8)
            case .spelt: Array(offer.callIdText.utf8)
            case .callId: Array(offer.callId.string.utf8)
            case .offer: offer.frame
            case .ringTimeout: Self.text(settings.ringTimeoutMillis)
            case .ringingTTL: Self.text(settings.ringingTTLMillis)
            case .confirmTimeout: Self.text(settings.confirmTimeoutMillis)
            case .hit: Array(offer.rateLimit.nonce.utf8)
            }
        }, moreKeys: keys.rateLimits(offer.rateLimit.buckets),
           moreArguments: routing + RedisRateLimitStore.limitArguments(offer.rateLimit.buckets))
        redis.evalScript(call) { result in
            completion(Self.outcome(result))
        }
    }

    package func signal(_ signal: CallSignal, completion: @escaping StoreCompletion<CallStoreOutcome>) {
        if redis.isCluster { return signalInSteps(signal, completion: completion) }
        let call = RedisScriptCall(CallScripts.signal, keys: { (name: CallScripts.SignalKey) in
            switch name {
            case .call: keys.call(signal.callId)
            case .route: keys.route(signal.to)
            case .deadlines: keys.callDeadlines
            case .candidates: keys.callCandidates(signal.callId)
            case .fromHeld: keys.heldCalls(signal.from)
            case .toHeld: keys.heldCalls(signal.to)
            }
        }, arguments: { (name: CallScripts.SignalArgument) in
            switch name {
            case .kind: Array(Self.scriptKind(signal.kind).utf8)
            case .from: Array(signal.from.string.utf8)
            case .to: Array(signal.to.string.utf8)
            case .callId: Array(signal.callId.string.utf8)
            case .frame: signal.frame
            case .answeredTTL: Self.text(settings.answeredTTLMillis)
            case .endedTTL: Self.text(settings.endedTTLMillis)
            case .eventsPrefix: Array(keys.eventsPrefix.utf8)
            case .routePrefix: Array(keys.routePrefix.utf8)
            case .eventTTL: Self.text(settings.eventTTLMillis)
            case .maxEvents: Self.text(Int64(settings.maxEvents))
            case .maxCandidates: Self.text(Int64(settings.maxHeldCandidates))
            case .hit: Array(signal.rateLimit.nonce.utf8)
            }
        }, moreKeys: keys.rateLimits(signal.rateLimit.buckets),
           moreArguments: routing + RedisRateLimitStore.limitArguments(signal.rateLimit.buckets))
        redis.evalScript(call) { result in
            completion(Self.outcome(result))
        }
    }

    package func confirm(_ callId: CanonicalUUID, callee: WhisperID, completion: @escaping StoreCompletion<CallConfirmation>) {
        if redis.isCluster { return confirmInSteps(callId, callee: callee, completion: completion) }
        let call = RedisScriptCall(CallScripts.confirm, keys: { (_: CallScripts.ConfirmKey) in keys.call(callId) },
                                   arguments: { (name: CallScripts.ConfirmArgument) in
            switch name {
            case .callee: Array(callee.string.utf8)
            case .routePrefix: Array(keys.routePrefix.utf8)
            }
        }, moreArguments: routing)
        redis.evalScript(call) { result in
            completion(RedisReplies.tagged(result) { status, items -> CallConfirmation? in
                switch status {
                case 1: return .unknownCall
                case 2: return .notTheCallee
                case 5: return .repeated
                default:
                    // {0, caller, routing, ringing frame}
                    guard items.count == 4, let caller = items[1].string.flatMap(WhisperID.validate),
                          let routing = items[2].string.flatMap(RedisMessageStore.routing), let frame = items[3].bytes
                    else { return nil }
                    return .confirmed(caller: caller, routing: routing, frame: frame)
                }
            })
        }
    }

    package func heldCalls(for user: WhisperID, completion: @escaping StoreCompletion<[[UInt8]]>) {
        if redis.isCluster { return heldCallsInSteps(for: user, completion: completion) }
        let call = RedisScriptCall(CallScripts.held, keys: { (name: CallScripts.HeldKey) in
            switch name {
            case .held: keys.heldCalls(user)
            case .blocked: keys.blocked(user)
            case .confirmDeadlines: keys.callConfirmDeadlines
            }
        }, arguments: { (name: CallScripts.HeldArgument) in
            switch name {
            case .user: Array(user.string.utf8)
            case .callPrefix: Array(keys.callPrefix.utf8)
            case .candidatesPrefix: Array(keys.callCandidatesPrefix.utf8)
            case .routePrefix: Array(keys.routePrefix.utf8)
            case .confirmTimeout: Self.text(settings.confirmTimeoutMillis)
            }
        })
        redis.evalScript(call) { result in
            completion(RedisReplies.value(result).flatMap { value in
                guard let frames = value.array?.compactMap(\.bytes) else { return .failure(RedisReplies.unexpected(value)) }
                return .success(frames)
            })
        }
    }

    package func sweep(completion: @escaping StoreCompletion<CallSweep>) {
        if redis.isCluster { return sweepInSteps(completion: completion) }
        let call = RedisScriptCall(CallScripts.sweep, keys: { (name: CallScripts.SweepKey) in
            switch name {
            case .deadlines: keys.callDeadlines
            case .confirmDeadlines: keys.callConfirmDeadlines
            }
        }, arguments: { (name: CallScripts.SweepArgument) in
            switch name {
            case .callPrefix: Array(keys.callPrefix.utf8)
            case .candidatesPrefix: Array(keys.callCandidatesPrefix.utf8)
            case .heldPrefix: Array(keys.heldCallsPrefix.utf8)
            case .routePrefix: Array(keys.routePrefix.utf8)
            case .eventsPrefix: Array(keys.eventsPrefix.utf8)
            case .eventTTL: Self.text(settings.eventTTLMillis)
            case .maxEvents: Self.text(Int64(settings.maxEvents))
            case .endedTTL: Self.text(settings.endedTTLMillis)
            case .batch: Self.text(Int64(settings.sweepBatch))
            case .lease: Self.text(settings.claimLeaseMillis)
            }
        }, moreArguments: routing)
        redis.evalScript(call) { result in
            completion(RedisReplies.value(result).flatMap { value in
                guard let parts = value.array, parts.count == 2, let pending = parts[0].array, pending.count % 4 == 0,
                      let entries = parts[1].array
                else { return .failure(RedisReplies.unexpected(value)) }
                var unconfirmed: [UnconfirmedOffer] = []
                for start in stride(from: 0, to: pending.count, by: 4) {
                    guard let callee = pending[start].string.flatMap(WhisperID.validate), let callIdText = pending[start + 1].string,
                          let callId = pending[start + 2].string.flatMap(CanonicalUUID.init), let claim = pending[start + 3].string
                    else { return .failure(RedisReplies.unexpected(value)) }
                    unconfirmed.append(UnconfirmedOffer(callee: callee, callIdText: callIdText, callId: callId, claim: claim))
                }
                var calls: [RangOutCall] = []
                for entry in entries {
                    // {frame, caller, routing[, callee, routing]}
                    guard let items = entry.array, items.count == 3 || items.count == 5, let frame = items[0].bytes else {
                        return .failure(RedisReplies.unexpected(entry))
                    }
                    var local: [(user: WhisperID, route: LiveRoute)] = []
                    for index in stride(from: 1, to: items.count, by: 2) {
                        guard let user = items[index].string.flatMap(WhisperID.validate),
                              let routing = items[index + 1].string.flatMap(RedisMessageStore.routing)
                        else { return .failure(RedisReplies.unexpected(entry)) }
                        if case .local(let route) = routing { local.append((user, route)) }
                    }
                    calls.append(RangOutCall(frame: frame, local: local))
                }
                return .success(CallSweep(ended: calls, unconfirmed: unconfirmed))
            })
        }
    }

    /// One script in both modes (`calls:confirm` is one key).
    package func settle(_ offer: UnconfirmedOffer, completion: @escaping StoreCompletion<Void>) {
        settle(offer.callId, claimed: offer.claim, next: nil, in: keys.callConfirmDeadlines, completion: completion)
    }

    // MARK: Replies

    static func outcome(_ result: Result<RedisValue, RedisError>) -> Result<CallStoreOutcome, StoreError> {
        RedisReplies.tagged(result) { status, items -> CallStoreOutcome? in
            switch status {
            case 1: return .unknownCall
            case 2: return .notAParty
            case 3: return items.count == 2 ? items[1].integer.map { .rateLimited(retryAfterMs: $0) } : nil
            case 4: return .dropped(setup: items.count == 2 ? items[1].string.flatMap(CallSetupResult.init(rawValue:)) : nil)
            default:
                guard items.count >= 2, let routing = items[1].string.flatMap(RedisMessageStore.routing) else { return nil }
                let setup = items.count == 3 ? items[2].string.flatMap(CallSetupResult.init(rawValue:)) : nil
                return .routed(routing, setup: setup)
            }
        }
    }

    static func scriptKind(_ kind: CallSignalKind) -> String {
        switch kind {
        case .initiate: return "initiate"
        case .answer: return "answer"
        case .iceCandidate: return "ice"
        case .end: return "end"
        }
    }

    static func text(_ value: Int64) -> [UInt8] { RedisMessageStore.text(value) }
}
