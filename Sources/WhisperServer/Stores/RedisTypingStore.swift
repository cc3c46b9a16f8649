import WhisperProtocol
import WhisperServices
import WhisperStorage

/// Typing signals in Redis (`MessageScripts.typing`): one script — one round trip — per signal.
final class RedisTypingStore: TypingStore {
    private let redis: RedisClient
    private let keys: RedisKeys
    private let node: String
    private let peerWindowMillis: Int64

    init(redis: RedisClient, keys: RedisKeys, node: String, limits: Limits) {
        self.redis = redis
        self.keys = keys
        self.node = node
        self.peerWindowMillis = limits.directPeerWindowSeconds * 1000
    }

    func relay(_ signal: TypingSignal, minIntervalMillis: Int64, completion: @escaping StoreCompletion<TypingOutcome>) {
        let scriptKeys = [keys.peers(signal.from), keys.typing(from: signal.from, to: signal.to), keys.route(signal.to),
                          keys.blocked(signal.to)] + keys.rateLimits(signal.rateLimit.buckets)
        let arguments: [[UInt8]] = [
            Array(signal.to.string.utf8), signal.frame, RedisMessageStore.text(minIntervalMillis),
            RedisMessageStore.text(peerWindowMillis),
        ] + keys.routing(from: node) + [Array(signal.rateLimit.nonce.utf8), Array(signal.from.string.utf8)]
            + RedisRateLimitStore.limitArguments(signal.rateLimit.buckets)
        redis.evalScript(MessageScripts.typing, keys: scriptKeys, arguments: arguments) { result in
            completion(RedisReplies.tagged(result) { status, items -> TypingOutcome? in
                switch status {
                case 1: return .notPeer
                case 2: return .throttled
                case 3: return items.count == 2 ? items[1].integer.map { .rateLimited(retryAfterMs: $0) } : nil
                case 4: return .blocked
                default: return items.count == 2 ? items[1].string.flatMap(RedisMessageStore.routing).map { .relayed($0) } : nil
                }
            })
        }
    }
}
