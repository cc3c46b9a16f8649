import WhisperProtocol
import WhisperServices
import WhisperStorage

/// Group epochs, change notices and group events in Redis (`GroupScripts`, `RedisRouter`). One per loop.
package final class RedisGroupEventStore: GroupEventStore {
    private let redis: RedisClient
    private let keys: RedisKeys
    private let router: RedisRouter
    private let random: RandomSource

    package init(redis: RedisClient, keys: RedisKeys, node: String, limits: Limits, random: RandomSource = SodiumRandom()) {
        self.redis = redis
        self.keys = keys
        // Kept group events live as long as kept receipts (`RedisRouter`).
        self.router = RedisRouter(redis: redis, keys: keys, node: node, limits: limits)
        self.random = random
    }

    package func epoch(of groupId: GroupID, completion: @escaping StoreCompletion<String>) {
        redis.send([Array("GET".utf8), keys.groupEpoch(groupId)]) { result in
            completion(RedisReplies.value(result).map { $0.string ?? GroupScripts.noEpoch })
        }
    }

    /// The epoch moves first (the group's slot), then the change notice is published, then
    /// each recipient's event is routed or kept (each in its own slot; `RedisRouter`). On one
    /// Redis a node's subscriber reads the notice before the events, so it forgets the group
    /// before a member can answer the event with a message. On a cluster the notice and the
    /// events come over different shards' links and may arrive in either order: a message
    /// sent under the old membership then meets the new epoch in its accept and is checked
    /// again (`AcceptOutcome.membershipChanged`). A node dying half-way leaves some members
    /// without the event, as a lost link did before; the epoch has moved first, so no message
    /// goes by the old membership.
    package func announce(_ groupId: GroupID, deleted: Bool, event: [UInt8], to recipients: [WhisperID],
                          completion: @escaping StoreCompletion<[Routing]>) {
        // A random token, not a counter: a lost or deleted key can never bring back an epoch
        // that some cache still holds.
        let epoch = deleted ? "" : random.hex(12)
        let call = RedisScriptCall(GroupScripts.moveEpoch, keys: { (_: GroupScripts.EpochKey) in keys.groupEpoch(groupId) },
                                   arguments: { (_: GroupScripts.EpochArgument) in Array(epoch.utf8) })
        redis.evalScript(call) { [self] result in
            if case .failure(let error) = RedisReplies.value(result) { return completion(.failure(error)) }
            redis.publish(keys.groupChangeChannel, Array(groupId.string.utf8)) { _ in }
            guard !recipients.isEmpty else { return completion(.success([])) }
            var routings = [Routing?](repeating: nil, count: recipients.count)
            var remaining = recipients.count
            var failure: StoreError?
            for (index, recipient) in recipients.enumerated() {
                router.deliverEvent(event, to: recipient) { result in
                    switch result {
                    case .success(let routing): routings[index] = routing
                    case .failure(let error): failure = failure ?? error
                    }
                    remaining -= 1
                    guard remaining == 0 else { return }
                    if let failure { return completion(.failure(failure)) }
                    completion(.success(routings.map { $0 ?? .offline }))
                }
            }
        }
    }
}
