import WhisperProtocol
import WhisperServices
import WhisperStorage

/// The attachment GC's Redis side: the lease that gives the periodic run to one node per
/// interval.
package final class RedisAttachmentGC {
    private let redis: RedisClient
    private let keys: RedisKeys
    private let node: String

    package init(redis: RedisClient, keys: RedisKeys, node: String) {
        self.redis = redis
        self.keys = keys
        self.node = node
    }

    /// `SET attachment-gc-lease <node> NX PX <ms>`: true when this node took the lease.
    package func acquireLease(millis: Int64, completion: @escaping StoreCompletion<Bool>) {
        let command: [[UInt8]] = [Array("SET".utf8), keys.attachmentGCLease, Array(node.utf8), Array("NX".utf8),
                                  Array("PX".utf8), Array(String(millis).utf8)]
        redis.send(command) { result in
            completion(RedisReplies.value(result).map { !$0.isNull })
        }
    }
}
