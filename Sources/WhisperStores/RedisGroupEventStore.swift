import WhisperProtocol
import WhisperServices
import WhisperStorage

/// Group epochs, change notices and group events in Redis (`GroupScripts`). One per loop.
package final class RedisGroupEventStore: GroupEventStore {
    private let redis: RedisClient
    private let keys: RedisKeys
    private let node: String
    private let eventTTLMillis: Int64
    private let maxEventsPerUser: Int
    private let random: RandomSource

    package init(redis: RedisClient, keys: RedisKeys, node: String, limits: Limits, random: RandomSource = SodiumRandom()) {
        self.redis = redis
        self.keys = keys
        self.node = node
        // Kept group events live as long as kept receipts (`RedisMessageStore`).
        self.eventTTLMillis = limits.pendingTTLSeconds * 1000
        self.maxEventsPerUser = limits.maxKeptEventsPerUser
        self.random = random
    }

    package func epoch(of groupId: GroupID, completion: @escaping StoreCompletion<String>) {
        redis.send([Array("GET".utf8), keys.groupEpoch(groupId)]) { result in
            completion(RedisReplies.value(result).map { $0.string ?? GroupScripts.noEpoch })
        }
    }

    package func announce(_ groupId: GroupID, deleted: Bool, event: [UInt8], to recipients: [WhisperID],
                          completion: @escaping StoreCompletion<[Routing]>) {
        var recipientKeys: [[UInt8]] = []
        recipientKeys.reserveCapacity(2 * recipients.count)
        for recipient in recipients { recipientKeys += [keys.route(recipient), keys.events(recipient)] }
        // A random token, not a counter: a lost or deleted key can never bring back an epoch
        // that some cache still holds.
        let epoch = deleted ? "" : random.hex(12)
        let call = RedisScriptCall(GroupScripts.announce, keys: { (_: GroupScripts.AnnounceKey) in keys.groupEpoch(groupId) },
                                   arguments: { (name: GroupScripts.AnnounceArgument) in
            switch name {
            case .epoch: Array(epoch.utf8)
            case .channel: keys.groupChangeChannel
            case .groupId: Array(groupId.string.utf8)
            case .event: event
            case .eventTTL: RedisMessageStore.text(eventTTLMillis)
            case .maxEvents: RedisMessageStore.text(Int64(maxEventsPerUser))
            }
        }, moreKeys: recipientKeys, moreArguments: keys.routeArguments(node: node) + recipients.map { Array($0.string.utf8) })
        redis.evalScript(call) { result in
            completion(RedisReplies.value(result).flatMap { value in
                guard let items = value.array, items.count == recipients.count else {
                    return .failure(RedisReplies.unexpected(value))
                }
                var routings: [Routing] = []
                routings.reserveCapacity(items.count)
                for item in items {
                    guard let routing = item.string.flatMap(RedisMessageStore.routing) else {
                        return .failure(RedisReplies.unexpected(item))
                    }
                    routings.append(routing)
                }
                return .success(routings)
            })
        }
    }
}
