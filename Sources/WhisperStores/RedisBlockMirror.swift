import WhisperProtocol
import WhisperServices
import WhisperStorage

/// The copy of each user's block list in Redis (`blocked:{whisperId}`, a set of Whisper IDs)
/// that `CallScripts.initiate`, `MessageScripts.typing`, the presence scripts and the message
/// accept script check. One command — one round trip — per change.
package final class RedisBlockMirror: BlockMirror {
    private let redis: RedisClient
    private let keys: RedisKeys

    package init(redis: RedisClient, keys: RedisKeys) {
        self.redis = redis
        self.keys = keys
    }

    package func add(_ blocked: WhisperID, by blocker: WhisperID, completion: @escaping StoreCompletion<Void>) {
        change("SADD", blocked, of: blocker, completion)
    }

    package func remove(_ blocked: WhisperID, by blocker: WhisperID, completion: @escaping StoreCompletion<Void>) {
        change("SREM", blocked, of: blocker, completion)
    }

    package func replace(_ blocked: [WhisperID], of blocker: WhisperID, completion: @escaping StoreCompletion<Void>) {
        let names = BlockScripts.ReplaceKey.allCases.map { name in
            switch name {
            case .blocked: keys.blocked(blocker)
            }
        }
        redis.evalScript(BlockScripts.replace, keys: names, arguments: blocked.map { Array($0.string.utf8) }) { result in
            completion(RedisReplies.value(result).map { _ in () })
        }
    }

    private func change(_ command: String, _ blocked: WhisperID, of blocker: WhisperID,
                        _ completion: @escaping StoreCompletion<Void>) {
        redis.send([Array(command.utf8), keys.blocked(blocker), Array(blocked.string.utf8)]) { result in
            completion(RedisReplies.value(result).map { _ in () })
        }
    }
}
