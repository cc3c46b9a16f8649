import WhisperProtocol
import WhisperServices
import WhisperStorage

/// `challenge:{id}` with a TTL; consumed with GETDEL (Redis ≥ 6.2), which is atomic, so of
/// two racing proofs exactly one gets the challenge.
final class RedisChallengeStore: ChallengeStore {
    private let redis: RedisClient
    private let keys: RedisKeys

    init(redis: RedisClient, keys: RedisKeys) {
        self.redis = redis
        self.keys = keys
    }

    func put(_ id: CanonicalUUID, value: [UInt8], ttlSeconds: Int64, completion: @escaping StoreCompletion<Void>) {
        redis.send([Array("SET".utf8), keys.challenge(id), value, Array("EX".utf8), Array(String(ttlSeconds).utf8)]) { result in
            switch RedisReplies.value(result) {
            case .success(.status("OK")): completion(.success(()))
            case .success(let other): completion(.failure(RedisReplies.unexpected(other)))
            case .failure(let error): completion(.failure(error))
            }
        }
    }

    func take(_ id: CanonicalUUID, completion: @escaping StoreCompletion<[UInt8]?>) {
        redis.send([Array("GETDEL".utf8), keys.challenge(id)]) { result in
            switch RedisReplies.value(result) {
            case .success(.bulk(let bytes)): completion(.success(bytes))
            case .success(let other): completion(.failure(RedisReplies.unexpected(other)))
            case .failure(let error): completion(.failure(error))
            }
        }
    }
}
