import WhisperProtocol
import WhisperServices
import WhisperStorage

/// Typing signals in Redis (`MessageScripts.typing`): one script — one round trip — per signal.
package final class RedisTypingStore: TypingStore {
    private let redis: RedisClient
    private let keys: RedisKeys
    private let node: String
    private let peerWindowMillis: Int64

    package init(redis: RedisClient, keys: RedisKeys, node: String, limits: Limits) {
        self.redis = redis
        self.keys = keys
        self.node = node
        self.peerWindowMillis = limits.directPeerWindowSeconds * 1000
    }

    package func relay(_ signal: TypingSignal, minIntervalMillis: Int64, completion: @escaping StoreCompletion<TypingOutcome>) {
        let call = RedisScriptCall(MessageScripts.typing, keys: { (name: MessageScripts.TypingKey) in
            switch name {
            case .senderPeers: keys.peers(signal.from)
            case .typing: keys.typing(from: signal.from, to: signal.to)
            case .route: keys.route(signal.to)
            case .blocked: keys.blocked(signal.to)
            }
        }, arguments: { (name: MessageScripts.TypingArgument) in
            switch name {
            case .to: Array(signal.to.string.utf8)
            case .frame: signal.frame
            case .minInterval: RedisMessageStore.text(minIntervalMillis)
            case .peerWindow: RedisMessageStore.text(peerWindowMillis)
            case .hit: Array(signal.rateLimit.nonce.utf8)
            case .from: Array(signal.from.string.utf8)
            }
        }, moreKeys: keys.rateLimits(signal.rateLimit.buckets),
           moreArguments: keys.routeArguments(node: node) + RedisRateLimitStore.limitArguments(signal.rateLimit.buckets))
        redis.evalScript(call) { result in
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
