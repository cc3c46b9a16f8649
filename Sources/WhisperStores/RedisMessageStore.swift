import WhisperProtocol
import WhisperServices
import WhisperStorage

/// Pending queues, idempotency keys and event queues in Redis (`MessageScripts`), one
/// script — one round trip — per operation.
package final class RedisMessageStore: MessageStore {
    /// The `Limits` the scripts take, in their units.
    struct Settings {
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

    let redis: RedisClient
    let keys: RedisKeys
    let node: String
    let settings: Settings
    /// `WHISPER_REDIS_MIN_REPLICAS` > 0: the `WAIT` behind every accept.
    let replicaWait: RedisReplicaWait?
    /// Routes what the one-slot steps of a cluster answered (`RedisMessageStore+Steps`).
    let router: RedisRouter

    package init(redis: RedisClient, keys: RedisKeys, node: String, limits: Limits) {
        self.redis = redis
        self.keys = keys
        self.node = node
        self.settings = Settings(limits)
        self.replicaWait = RedisReplicaWait(redis.configuration)
        self.router = RedisRouter(redis: redis, keys: keys, node: node, limits: limits)
    }

    package func accept(_ message: MessageAcceptance, completion: @escaping StoreCompletion<AcceptOutcome>) {
        if redis.isCluster { return acceptInSteps(message, completion: completion) }
        // Written straight into one command: this runs for every message (docs/benchmarks.md).
        let call = RedisScriptCall(MessageScripts.accept, capacity: 512 + message.deliveryPayload.count, keys: { command in
            command.write(MessageScripts.AcceptKey.self) { name, command in
                switch name {
                case .record: keys.message(to: message.to, from: message.from, id: message.messageId, into: &command)
                case .pending: keys.pending(message.to, into: &command)
                case .route: keys.route(message.to, into: &command)
                case .senderPeers: keys.peers(message.from, into: &command)
                case .recipientPeers: keys.peers(message.to, into: &command)
                case .pendingCount: command.append(keys.joined.pendingCount)
                case .pendingIndex: command.append(keys.joined.pendingIndex)
                case .pushWake: keys.pushWake(message.to, into: &command)
                case .blocked: keys.blocked(message.to, into: &command)
                }
            }
            if let group = message.group {
                keys.groupEpoch(group.groupId, into: &command)
                keys.groupCharge(from: message.from, groupId: group.groupId, id: message.messageId, into: &command)
            }
            keys.rateLimits(message.rateLimit.buckets, into: &command)
        }, arguments: { command in
            command.write(MessageScripts.AcceptArgument.self) { name, command in
                switch name {
                case .to: command.append(message.to.string)
                case .from: command.append(message.from.string)
                case .payload: command.append(message.deliveryPayload)
                case .pendingTTL: command.append(settings.pendingTTLMillis)
                case .peerTTL: command.append(settings.peerTTLMillis)
                case .maxPending: command.append(settings.maxPendingPerUser)
                case .receivedAtMicros: command.append(message.receivedAtMicros)
                case .hit: command.append(message.rateLimit.nonce)
                case .epoch: command.append(message.group?.epoch ?? "")
                case .wakeWindow: command.append(message.wakeWindowMillis ?? 0)
                case .spelt: command.append(message.messageIdText)
                }
            }
            command.write(RouteArgument.self) { name, command in keys.write(name, node: node, into: &command) }
            RedisRateLimitStore.limitArguments(message.rateLimit.buckets, into: &command)
        })
        guard let replicaWait else {
            return redis.evalScript(call, retryOnce: true, reading: { completion(Self.acceptOutcome($0)) })
        }
        // The same connection (the same primary) answers WAIT right after the script.
        redis.evalScript(call, retryOnce: true, then: replicaWait, reading: Self.acceptOutcome) { outcome, replicas in
            completion(outcome.map { Self.confirmed($0, replicas: replicas, wanted: replicaWait.replicas) })
        }
    }

    static func acceptOutcome(_ result: Result<RedisReply, RedisError>) -> Result<AcceptOutcome, StoreError> {
        RedisReplies.tagged(result) { status, reply -> AcceptOutcome? in
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
        }
    }

    /// An outcome the sender is acknowledged for stays so only when `wanted` replicas confirmed
    /// it; refusals stored nothing to confirm.
    static func confirmed(_ outcome: AcceptOutcome, replicas: Int?, wanted: Int) -> AcceptOutcome {
        switch outcome {
        case .accepted, .duplicate, .dropped:
            guard let replicas, replicas >= wanted else { return .unconfirmed(outcome, replicas: replicas) }
            return outcome
        case .queueFull, .rateLimited, .membershipChanged, .unconfirmed:
            return outcome
        }
    }

    package func fetch(_ recipient: WhisperID, after cursor: PendingCursor?, limit: Int,
                       completion: @escaping StoreCompletion<PendingPage>) {
        let start = cursor.map { "(" + $0.text } ?? "-"
        let call = RedisScriptCall(MessageScripts.fetch, keys: { (name: MessageScripts.FetchKey) in
            switch name {
            case .pending: keys.pending(recipient)
            case .pendingCount: keys.pendingCount(of: recipient, cluster: redis.isCluster)
            }
        }, arguments: { (name: MessageScripts.FetchArgument) in
            switch name {
            case .start: Array(start.utf8)
            case .count: Self.text(Int64(limit) + 1)
            case .pendingTTL: Self.text(settings.pendingTTLMillis)
            }
        })
        redis.evalScript(call, retryOnce: true) { result in
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

    package func applyReceipt(_ receipt: ReceiptApplication, completion: @escaping StoreCompletion<ReceiptOutcome>) {
        if redis.isCluster { return applyReceiptInSteps(receipt, completion: completion) }
        let call = RedisScriptCall(MessageScripts.receipt, capacity: 640, keys: { command in
            command.write(MessageScripts.ReceiptKey.self) { name, command in
                switch name {
                case .record: keys.message(to: receipt.recipient, from: receipt.sender, id: receipt.messageId, into: &command)
                case .pending: keys.pending(receipt.recipient, into: &command)
                case .senderRoute: keys.route(receipt.sender, into: &command)
                case .senderEvents: keys.events(receipt.sender, into: &command)
                case .pendingCount: command.append(keys.joined.pendingCount)
                case .legacyRecord: keys.legacyMessage(from: receipt.sender, id: receipt.messageId, into: &command)
                }
            }
        }, arguments: { command in
            command.write(MessageScripts.ReceiptArgument.self) { name, command in
                switch name {
                case .recipient: command.append(receipt.recipient.string)
                case .status: command.append(receipt.status.rawValue)
                case .head: command.append(receipt.notification.head)
                case .tail: command.append(receipt.notification.tail)
                case .eventTTL: command.append(settings.eventTTLMillis)
                case .maxEvents: command.append(settings.maxEventsPerUser)
                case .sender: command.append(receipt.sender.string)
                case .spelt: command.append(receipt.messageIdText)
                }
            }
            command.write(RouteArgument.self) { name, command in keys.write(name, node: node, into: &command) }
        })
        redis.evalScript(call, retryOnce: true, reading: { result in
            completion(RedisReplies.tagged(result) { status, reply -> ReceiptOutcome? in
                switch status {
                case 0: return .unknown
                default:
                    guard status == 1, reply.count == 4, let removed = reply[1]?.integer,
                          let routing = reply[2]?.string.flatMap(Self.routing), let spelt = reply[3]?.string
                    else { return nil }
                    return .applied(removed: removed > 0, routing: routing, messageIdText: spelt)
                }
            })
        })
    }

    /// The envelope's record (`msg:{to}:from:id`) exists for the pending TTL; one accepted
    /// before 2026-11-26 has the legacy record `msg:from:id` holding `"<to> <entry>[ d]"` (never
    /// on a cluster, whose `MGET` cannot span the two slots).
    package func wasAccepted(_ messageId: CanonicalUUID, from: WhisperID, to: WhisperID, completion: @escaping StoreCompletion<Bool>) {
        if redis.isCluster {
            return redis.send([Array("EXISTS".utf8), keys.message(to: to, from: from, id: messageId)]) { result in
                completion(RedisReplies.value(result).map { $0.integer == 1 })
            }
        }
        redis.send([Array("MGET".utf8), keys.message(to: to, from: from, id: messageId), keys.legacyMessage(from: from, id: messageId)]) { result in
            completion(RedisReplies.value(result).flatMap { value in
                guard let records = value.array, records.count == 2 else { return .failure(RedisReplies.unexpected(value)) }
                if !records[0].isNull { return .success(true) }
                let legacyRecipient = records[1].string?.split(separator: " ", maxSplits: 1).first.map(String.init)
                return .success(legacyRecipient == to.string)
            })
        }
    }

    package func keepEvent(_ frame: [UInt8], for user: WhisperID, completion: @escaping StoreCompletion<Void>) {
        router.keep(frame, for: user, completion: completion)
    }

    // MARK: Replies

    package static func routing(_ text: String) -> Routing? {
        switch text {
        case "offline": return .offline
        case "remote": return .remote
        default: return LiveRoute(text: text).map(Routing.local)
        }
    }

    package static func field(_ name: String, in fields: [RedisValue]) -> [UInt8]? {
        var index = 0
        while index + 1 < fields.count {
            if fields[index].string == name { return fields[index + 1].bytes }
            index += 2
        }
        return nil
    }

    package static func text(_ value: Int64) -> [UInt8] { Array(String(value).utf8) }
}
