import WhisperProtocol
import WhisperServices
import WhisperStorage

/// The attachment GC's Redis side: the delivery ledger (`msg:{from}:{id}`, written by the
/// message scripts) and the lease that gives the periodic run to one node per interval.
final class RedisAttachmentGC: DeliveryLedger {
    private let redis: RedisClient
    private let keys: RedisKeys
    private let node: String

    init(redis: RedisClient, keys: RedisKeys, node: String) {
        self.redis = redis
        self.keys = keys
        self.node = node
    }

    /// One MGET: `"<to> <entry> d"` is receipted `delivered`; a missing key is past the pending
    /// TTL (the message can no longer be delivered); anything else is still pending.
    func settled(_ rows: [UndeliveredRecipient], completion: @escaping StoreCompletion<[Bool]>) {
        let command = [Array("MGET".utf8)] + rows.map { keys.message(from: $0.uploader, id: $0.messageId) }
        redis.send(command) { result in
            completion(RedisReplies.value(result).flatMap { value in
                guard let items = value.array, items.count == rows.count else {
                    return .failure(RedisReplies.unexpected(value))
                }
                return .success(items.map { item in item.isNull || (item.string?.hasSuffix(" d") ?? false) })
            })
        }
    }

    /// `SET attachment-gc-lease <node> NX PX <ms>`: true when this node took the lease.
    func acquireLease(millis: Int64, completion: @escaping StoreCompletion<Bool>) {
        let command: [[UInt8]] = [Array("SET".utf8), keys.attachmentGCLease, Array(node.utf8), Array("NX".utf8),
                                  Array("PX".utf8), Array(String(millis).utf8)]
        redis.send(command) { result in
            completion(RedisReplies.value(result).map { !$0.isNull })
        }
    }
}
