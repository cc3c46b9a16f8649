import WhisperProtocol
import WhisperServices
import WhisperStorage

/// Pending queues, idempotency keys and event queues in Redis (`MessageScripts`), one
/// script — one round trip — per operation.
final class RedisMessageStore: MessageStore {
    /// The `Limits` the scripts take, in their units.
    private struct Settings {
        let pendingTTLMillis: Int64
        let peerTTLMillis: Int64
        let maxPendingPerUser: Int
        /// Kept events live as long as the messages they are about.
        let eventTTLMillis: Int64
        let maxEventsPerUser: Int

        init(_ limits: Limits) {
            pendingTTLMillis = limits.pendingTTLSeconds * 1000
            peerTTLMillis = limits.directPeerWindowSeconds * 1000
            maxPendingPerUser = limits.maxPendingPerUser
            eventTTLMillis = pendingTTLMillis
            maxEventsPerUser = limits.maxKeptEventsPerUser
        }
    }

    private let redis: RedisClient
    private let keys: RedisKeys
    private let node: String
    private let settings: Settings

    init(redis: RedisClient, keys: RedisKeys, node: String, limits: Limits) {
        self.redis = redis
        self.keys = keys
        self.node = node
        self.settings = Settings(limits)
    }

    func accept(_ message: MessageAcceptance, completion: @escaping StoreCompletion<AcceptOutcome>) {
        // Written straight into one command: this runs for every message (docs/benchmarks.md).
        let call = RedisScriptCall(MessageScripts.accept, capacity: 512 + message.deliveryPayload.count, keys: { command in
            keys.message(to: message.to, from: message.from, id: message.messageId, into: &command)
            keys.pending(message.to, into: &command)
            keys.route(message.to, into: &command)
            keys.peers(message.from, into: &command)
            keys.peers(message.to, into: &command)
            command.append(keys.joined.pendingCount)
            command.append(keys.joined.pendingIndex)
            keys.pushWake(message.to, into: &command)
            keys.blocked(message.to, into: &command)
            if let group = message.group {
                keys.groupEpoch(group.groupId, into: &command)
                keys.groupCharge(from: message.from, groupId: group.groupId, id: message.messageId, into: &command)
            }
            keys.rateLimits(message.rateLimit.buckets, into: &command)
        }, arguments: { command in
            command.append(message.to.string)
            command.append(message.from.string)
            command.append(message.deliveryPayload)
            command.append(settings.pendingTTLMillis)
            command.append(settings.peerTTLMillis)
            command.append(settings.maxPendingPerUser)
            keys.routing(from: node, into: &command)
            command.append(message.receivedAtMicros)
            command.append(message.rateLimit.nonce)
            command.append(message.group?.epoch ?? "")
            command.append(message.wakeWindowMillis ?? 0)
            command.append(message.messageIdText)
            RedisRateLimitStore.limitArguments(message.rateLimit.buckets, into: &command)
        })
        redis.evalScript(call, retryOnce: true, reading: { result in
            completion(RedisReplies.tagged(result) { status, reply -> AcceptOutcome? in
                switch status {
                case 1: return .duplicate
                case 2: return .queueFull
                case 3: return reply.count == 2 ? reply[1]?.integer.map { .rateLimited(retryAfterMs: $0) } : nil
                case 4: return .membershipChanged
                case 5: return .dropped
                default:
                    guard reply.count == 4, let cursor = reply[1]?.string.flatMap(PendingCursor.init),
                          let routing = reply[2]?.string.flatMap(Self.routing), let woke = reply[3]?.integer
                    else { return nil }
                    return .accepted(cursor: cursor, routing: routing, wakeClaimed: woke == 1)
                }
            })
        })
    }

    func fetch(_ recipient: WhisperID, after cursor: PendingCursor?, limit: Int,
               completion: @escaping StoreCompletion<PendingPage>) {
        let start = cursor.map { "(" + $0.text } ?? "-"
        let arguments = [Array(start.utf8), Self.text(Int64(limit) + 1), Self.text(settings.pendingTTLMillis)]
        redis.evalScript(MessageScripts.fetch, keys: [keys.pending(recipient), keys.pendingCount], arguments: arguments, retryOnce: true) { result in
            completion(RedisReplies.value(result).flatMap { value in
                guard let entries = value.array else { return .failure(RedisReplies.unexpected(value)) }
                var messages: [(cursor: PendingCursor, payload: [UInt8])] = []
                messages.reserveCapacity(min(entries.count, limit))
                for entry in entries.prefix(limit) {
                    // [id, [field, value, …]]
                    guard let parts = entry.array, parts.count == 2, let cursor = parts[0].string.flatMap(PendingCursor.init),
                          let fields = parts[1].array, let payload = Self.field("m", in: fields)
                    else { return .failure(RedisReplies.unexpected(entry)) }
                    messages.append((cursor, payload))
                }
                return .success(PendingPage(messages: messages, hasMore: entries.count > limit))
            })
        }
    }

    func applyReceipt(_ receipt: ReceiptApplication, completion: @escaping StoreCompletion<ReceiptOutcome>) {
        let call = RedisScriptCall(MessageScripts.receipt, capacity: 640, keys: { command in
            keys.message(to: receipt.recipient, from: receipt.sender, id: receipt.messageId, into: &command)
            keys.pending(receipt.recipient, into: &command)
            keys.route(receipt.sender, into: &command)
            keys.events(receipt.sender, into: &command)
            command.append(keys.joined.pendingCount)
            keys.legacyMessage(from: receipt.sender, id: receipt.messageId, into: &command)
        }, arguments: { command in
            command.append(receipt.recipient.string)
            command.append(receipt.status.rawValue)
            command.append(receipt.notification.head)
            command.append(receipt.notification.tail)
            keys.routing(from: node, into: &command)
            command.append(settings.eventTTLMillis)
            command.append(settings.maxEventsPerUser)
            command.append(receipt.sender.string)
            command.append(receipt.messageIdText)
        })
        redis.evalScript(call, retryOnce: true, reading: { result in
            completion(RedisReplies.tagged(result) { status, reply -> ReceiptOutcome? in
                switch status {
                case 0: return .unknown
                case 2: return .repeated
                default:
                    guard reply.count == 4, let removed = reply[1]?.integer,
                          let routing = reply[2]?.string.flatMap(Self.routing), let spelt = reply[3]?.string
                    else { return nil }
                    return .applied(removed: removed > 0, routing: routing, messageIdText: spelt)
                }
            })
        })
    }

    /// The envelope's record (`msg:{to}:from:id`) exists for the pending TTL; one accepted
    /// before 2026-11-26 has the legacy record `msg:from:id` holding `"<to> <entry>[ d]"`.
    func wasAccepted(_ messageId: CanonicalUUID, from: WhisperID, to: WhisperID, completion: @escaping StoreCompletion<Bool>) {
        redis.send([Array("MGET".utf8), keys.message(to: to, from: from, id: messageId), keys.legacyMessage(from: from, id: messageId)]) { result in
            completion(RedisReplies.value(result).flatMap { value in
                guard let records = value.array, records.count == 2 else { return .failure(RedisReplies.unexpected(value)) }
                if !records[0].isNull { return .success(true) }
                let legacyRecipient = records[1].string?.split(separator: " ", maxSplits: 1).first.map(String.init)
                return .success(legacyRecipient == to.string)
            })
        }
    }

    func keepEvent(_ frame: [UInt8], for user: WhisperID, completion: @escaping StoreCompletion<Void>) {
        let arguments = [frame, Self.text(settings.eventTTLMillis), Self.text(Int64(settings.maxEventsPerUser))]
        redis.evalScript(MessageScripts.keepEvent, keys: [keys.events(user)], arguments: arguments) { result in
            completion(RedisReplies.value(result).map { _ in () })
        }
    }

    // MARK: Replies

    static func routing(_ text: String) -> Routing? {
        switch text {
        case "offline": return .offline
        case "remote": return .remote
        default: return LiveRoute(text: text).map(Routing.local)
        }
    }

    static func field(_ name: String, in fields: [RedisValue]) -> [UInt8]? {
        var index = 0
        while index + 1 < fields.count {
            if fields[index].string == name { return fields[index + 1].bytes }
            index += 2
        }
        return nil
    }

    static func text(_ value: Int64) -> [UInt8] { Array(String(value).utf8) }
}
