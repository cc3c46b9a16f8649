import WhisperProtocol
import WhisperServices
import WhisperStorage

/// Call state in Redis (`CallScripts`): one script — one round trip — per signal, per
/// confirmation, per login and per sweep.
final class RedisCallStore: CallStore {
    /// The `Limits` the scripts take, in their units.
    private struct Settings {
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

        init(_ limits: Limits) {
            ringTimeoutMillis = limits.callRingTimeoutSeconds * 1000
            confirmTimeoutMillis = limits.callConfirmTimeoutMillis
            ringingTTLMillis = ringTimeoutMillis + 300_000
            answeredTTLMillis = limits.callAnsweredTTLSeconds * 1000
            endedTTLMillis = limits.callEndedTTLSeconds * 1000
            eventTTLMillis = limits.pendingTTLSeconds * 1000
            maxEvents = limits.maxKeptEventsPerUser
            maxHeldCandidates = limits.maxHeldCallCandidates
        }
    }

    private let redis: RedisClient
    private let keys: RedisKeys
    private let node: String
    private let settings: Settings

    init(redis: RedisClient, keys: RedisKeys, node: String, limits: Limits) {
        self.redis = redis
        self.keys = keys
        self.node = node
        self.settings = Settings(limits)
    }

    /// This node and the routing prefixes, as the scripts take them.
    private var routing: [[UInt8]] { keys.routing(from: node) }

    func initiate(_ offer: CallOffer, completion: @escaping StoreCompletion<CallStoreOutcome>) {
        let scriptKeys = [keys.call(offer.callId), keys.route(offer.callee), keys.callDeadlines, keys.heldCalls(offer.callee),
                          keys.blocked(offer.callee), keys.callConfirmDeadlines] + keys.rateLimits(offer.rateLimit.buckets)
        let arguments: [[UInt8]] = [
            Array(offer.caller.string.utf8), Array(offer.callee.string.utf8), Array(offer.callIdText.utf8),
            Array(offer.callId.string.utf8), offer.frame, Self.text(settings.ringTimeoutMillis),
            Self.text(settings.ringingTTLMillis), Self.text(settings.confirmTimeoutMillis),
        ] + routing + [Array(offer.rateLimit.nonce.utf8)] + RedisRateLimitStore.limitArguments(offer.rateLimit.buckets)
        redis.evalScript(CallScripts.initiate, keys: scriptKeys, arguments: arguments) { result in
            completion(Self.outcome(result))
        }
    }

    func signal(_ signal: CallSignal, completion: @escaping StoreCompletion<CallStoreOutcome>) {
        let scriptKeys = [keys.call(signal.callId), keys.route(signal.to), keys.callDeadlines, keys.callCandidates(signal.callId),
                          keys.heldCalls(signal.from), keys.heldCalls(signal.to)] + keys.rateLimits(signal.rateLimit.buckets)
        let arguments: [[UInt8]] = [
            Array(Self.scriptKind(signal.kind).utf8), Array(signal.from.string.utf8), Array(signal.to.string.utf8),
            Array(signal.callId.string.utf8), signal.frame, Self.text(settings.answeredTTLMillis),
            Self.text(settings.endedTTLMillis),
        ] + routing + [
            Array(keys.eventsPrefix.utf8), Array(keys.routePrefix.utf8), Self.text(settings.eventTTLMillis),
            Self.text(Int64(settings.maxEvents)), Self.text(Int64(settings.maxHeldCandidates)),
            Array(signal.rateLimit.nonce.utf8),
        ] + RedisRateLimitStore.limitArguments(signal.rateLimit.buckets)
        redis.evalScript(CallScripts.signal, keys: scriptKeys, arguments: arguments) { result in
            completion(Self.outcome(result))
        }
    }

    func confirm(_ callId: CanonicalUUID, callee: WhisperID, completion: @escaping StoreCompletion<CallConfirmation>) {
        let arguments: [[UInt8]] = [Array(callee.string.utf8), Array(keys.routePrefix.utf8)] + routing
        redis.evalScript(CallScripts.confirm, keys: [keys.call(callId)], arguments: arguments) { result in
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

    func heldCalls(for user: WhisperID, completion: @escaping StoreCompletion<[[UInt8]]>) {
        let arguments: [[UInt8]] = [
            Array(user.string.utf8), Array(keys.callPrefix.utf8), Array(keys.callCandidatesPrefix.utf8),
            Array(keys.routePrefix.utf8), Self.text(settings.confirmTimeoutMillis),
        ]
        let scriptKeys = [keys.heldCalls(user), keys.blocked(user), keys.callConfirmDeadlines]
        redis.evalScript(CallScripts.held, keys: scriptKeys, arguments: arguments) { result in
            completion(RedisReplies.value(result).flatMap { value in
                guard let frames = value.array?.compactMap(\.bytes) else { return .failure(RedisReplies.unexpected(value)) }
                return .success(frames)
            })
        }
    }

    func sweep(completion: @escaping StoreCompletion<CallSweep>) {
        let arguments: [[UInt8]] = [
            Array(keys.callPrefix.utf8), Array(keys.callCandidatesPrefix.utf8), Array(keys.heldCallsPrefix.utf8),
            Array(keys.routePrefix.utf8), Array(keys.eventsPrefix.utf8),
        ] + routing + [
            Self.text(settings.eventTTLMillis), Self.text(Int64(settings.maxEvents)), Self.text(settings.endedTTLMillis),
            Self.text(Int64(settings.sweepBatch)),
        ]
        redis.evalScript(CallScripts.sweep, keys: [keys.callDeadlines, keys.callConfirmDeadlines], arguments: arguments) { result in
            completion(RedisReplies.value(result).flatMap { value in
                guard let parts = value.array, parts.count == 2, let pending = parts[0].array, pending.count % 2 == 0,
                      let entries = parts[1].array
                else { return .failure(RedisReplies.unexpected(value)) }
                var unconfirmed: [(callee: WhisperID, callIdText: String)] = []
                for start in stride(from: 0, to: pending.count, by: 2) {
                    guard let callee = pending[start].string.flatMap(WhisperID.validate), let callIdText = pending[start + 1].string
                    else { return .failure(RedisReplies.unexpected(value)) }
                    unconfirmed.append((callee, callIdText))
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

    // MARK: Replies

    private static func outcome(_ result: Result<RedisValue, RedisError>) -> Result<CallStoreOutcome, StoreError> {
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

    private static func scriptKind(_ kind: CallSignalKind) -> String {
        switch kind {
        case .initiate: return "initiate"
        case .answer: return "answer"
        case .iceCandidate: return "ice"
        case .end: return "end"
        }
    }

    private static func text(_ value: Int64) -> [UInt8] { RedisMessageStore.text(value) }
}
