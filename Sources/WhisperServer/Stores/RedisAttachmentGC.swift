import WhisperProtocol
import WhisperServices
import WhisperStorage

/// The attachment GC's Redis side: the delivery ledger (the `msg:` records written by the
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

    /// One MGET of each row's record and its legacy record (`RedisKeys.legacyMessage`): a
    /// record ending in ` d` is receipted `delivered`; no record at all is past the pending TTL
    /// (the message can no longer be delivered); anything else is still pending.
    func settled(_ rows: [UndeliveredRecipient], completion: @escaping StoreCompletion<[Bool]>) {
        var command = [Array("MGET".utf8)]
        for row in rows {
            command.append(keys.message(to: row.recipient, from: row.uploader, id: row.messageId))
            command.append(keys.legacyMessage(from: row.uploader, id: row.messageId))
        }
        redis.send(command) { result in
            completion(RedisReplies.value(result).flatMap { value in
                guard let items = value.array, items.count == 2 * rows.count else {
                    return .failure(RedisReplies.unexpected(value))
                }
                return .success(rows.indices.map { index in
                    let record = items[2 * index].isNull ? items[2 * index + 1] : items[2 * index]
                    return record.isNull || (record.string?.hasSuffix(" d") ?? false)
                })
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
