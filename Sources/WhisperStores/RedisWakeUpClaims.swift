import WhisperProtocol
import WhisperServices
import WhisperStorage

/// The push coalescing window (`push-wake:{user}`: `SET NX PX` is the claim, so of all the
/// nodes and loops that queue something for a user within the window exactly one sends) and
/// the owed wake-ups (`WakeUpScripts`).
package final class RedisWakeUpClaims: WakeUpClaims {
    private let redis: RedisClient
    private let keys: RedisKeys

    package init(redis: RedisClient, keys: RedisKeys) {
        self.redis = redis
        self.keys = keys
    }

    package func claim(_ user: WhisperID, windowMillis: Int64, completion: @escaping StoreCompletion<Bool>) {
        redis.send([Array("SET".utf8), keys.pushWake(user), Array("1".utf8), Array("NX".utf8), Array("PX".utf8),
                    RedisMessageStore.text(windowMillis)]) { result in
            completion(RedisReplies.value(result).map { !$0.isNull })
        }
    }

    package func owe(_ user: WhisperID, delayMillis: Int64, completion: @escaping StoreCompletion<WakeTicket>) {
        let bucket = RedisKeys.pushOwedBucket(of: user)
        let call = RedisScriptCall(WakeUpScripts.owe, keys: { (_: WakeUpScripts.OwedKey) in keys.pushOwed(bucket: bucket) },
                                   arguments: { (name: WakeUpScripts.OweArgument) in
            switch name {
            case .user: Array(user.string.utf8)
            case .delay: RedisMessageStore.text(delayMillis)
            }
        })
        redis.evalScript(call) { result in
            completion(RedisReplies.value(result).flatMap { value in
                guard let score = value.integer else { return .failure(RedisReplies.unexpected(value)) }
                return .success(WakeTicket(score))
            })
        }
    }

    package func settle(_ user: WhisperID, ticket: WakeTicket, retryAfterFailure: Bool, windowMillis: Int64,
                        maxDelayMillis: Int64) {
        let bucket = RedisKeys.pushOwedBucket(of: user)
        let call = RedisScriptCall(WakeUpScripts.settle, keys: { (name: WakeUpScripts.SettleKey) in
            switch name {
            case .owed: keys.pushOwed(bucket: bucket)
            case .tries: keys.pushTries(bucket: bucket)
            }
        }, arguments: { (name: WakeUpScripts.SettleArgument) in
            switch name {
            case .user: Array(user.string.utf8)
            case .ticket: Array(ticket.description.utf8)
            case .retry: Array((retryAfterFailure ? "1" : "0").utf8)
            case .window: RedisMessageStore.text(windowMillis)
            case .maxDelay: RedisMessageStore.text(maxDelayMillis)
            }
        })
        // A settle that fails leaves the entry to its score: the wake-up is sent (again) then.
        redis.evalScript(call) { (_: Result<RedisValue, RedisError>) in }
    }

    /// Every bucket, each for its share of `batch`: what the buckets that answered took (an
    /// entry a failed call may have taken comes back after its lease); a failure only when
    /// none answered.
    package func takeDue(batch: Int, leaseMillis: Int64,
                         completion: @escaping StoreCompletion<[(user: WhisperID, ticket: WakeTicket)]>) {
        let buckets = RedisKeys.pushOwedBuckets
        let share = max(1, (batch + buckets - 1) / buckets)
        var taken: [(user: WhisperID, ticket: WakeTicket)] = []
        var answered = 0, outstanding = buckets
        var failure: StoreError?
        for bucket in 0..<buckets {
            let call = RedisScriptCall(WakeUpScripts.takeDue, keys: { (_: WakeUpScripts.OwedKey) in keys.pushOwed(bucket: bucket) },
                                       arguments: { (name: WakeUpScripts.TakeArgument) in
                switch name {
                case .batch: RedisMessageStore.text(Int64(share))
                case .lease: RedisMessageStore.text(leaseMillis)
                }
            })
            redis.evalScript(call) { result in
                switch RedisReplies.value(result) {
                case .success(let value):
                    if let items = value.array?.compactMap(\.string), let score = items.first.flatMap({ Int64($0) }) {
                        answered += 1
                        taken += items.dropFirst().compactMap(WhisperID.validate).map { ($0, WakeTicket(score)) }
                    } else {
                        failure = failure ?? RedisReplies.unexpected(value)
                    }
                case .failure(let error):
                    failure = failure ?? error
                }
                outstanding -= 1
                guard outstanding == 0 else { return }
                if answered == 0, let failure { return completion(.failure(failure)) }
                completion(.success(taken))
            }
        }
    }

    package func recheck(_ user: WhisperID, windowMillis: Int64, completion: @escaping StoreCompletion<OwedWakeUp>) {
        let call = RedisScriptCall(WakeUpScripts.recheck, keys: { (name: WakeUpScripts.RecheckKey) in
            switch name {
            case .route: keys.route(user)
            case .pending: keys.pending(user)
            case .events: keys.events(user)
            case .pushWake: keys.pushWake(user)
            }
        }, arguments: { (_: WakeUpScripts.RecheckArgument) in RedisMessageStore.text(windowMillis) })
        redis.evalScript(call) { result in
            completion(RedisReplies.value(result).flatMap { value in
                switch value.string {
                case "online": .success(.online)
                case "nothing": .success(.nothingWaits)
                case "coalesced": .success(.coalesced)
                case "owed": .success(.owed)
                default: .failure(RedisReplies.unexpected(value))
                }
            })
        }
    }
}
