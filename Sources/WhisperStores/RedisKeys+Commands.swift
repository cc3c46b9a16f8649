import WhisperProtocol
import WhisperServices
import WhisperStorage

/// The keys and arguments of the per-message scripts (accept, receipt), written straight into
/// the command (`RedisCommand`): no joined `String` and no array per key. Each name is spelt
/// once, in `JoinedNames`, which `RedisKeys`'s own functions use too.
extension RedisKeys {
    package struct JoinedNames: Sendable {
        /// The legacy `msg:` record (untagged) and the delivery channel.
        let message, deliveryChannel: String
        /// Names whose id is a hash tag: these end in `{`, the id and `}` follow.
        let pending, events, route, peers, node, groupEpoch, rateLimit, pushWake: String
        let messageTag, groupChargeTag, blockedTag: String
        let pendingCount, pendingIndex: String

        init(prefix: String) {
            message = prefix + "msg:"
            pending = prefix + "pending:{"
            events = prefix + "events:{"
            route = prefix + "route:{"
            peers = prefix + "peers:{"
            node = prefix + "node:{"
            deliveryChannel = prefix + "deliver:{"
            groupEpoch = prefix + "group-epoch:{"
            rateLimit = prefix + "ratelimit:{"
            pushWake = prefix + "push-wake:{"
            messageTag = prefix + "msg:{"
            groupChargeTag = prefix + "group-charge:{"
            blockedTag = prefix + "blocked:{"
            pendingCount = prefix + "pending-count"
            pendingIndex = prefix + "pending-index"
        }
    }

    package func message(to: WhisperID, from: WhisperID, id: CanonicalUUID, into command: inout RedisCommand) {
        command.append(joined.messageTag, to.string, "}:", from.string, ":", id.string)
    }

    package func legacyMessage(from: WhisperID, id: CanonicalUUID, into command: inout RedisCommand) {
        command.append(joined.message, from.string, ":", id.string)
    }

    package func groupCharge(from: WhisperID, groupId: GroupID, id: CanonicalUUID, into command: inout RedisCommand) {
        groupCharge(tag: from.string, groupId: groupId, id: id, into: &command)
    }

    /// `group-charge:{<tag>}:groupId:id`: a group message's mark in the slot of a rate-limited
    /// subject's tag (`rateLimitTag`).
    package func groupCharge(tag: String, groupId: GroupID, id: CanonicalUUID, into command: inout RedisCommand) {
        command.append(joined.groupChargeTag, tag, "}:", groupId.string, ":", id.string)
    }

    package func blocked(_ whisperId: WhisperID, into command: inout RedisCommand) { command.append(joined.blockedTag, whisperId.string, "}") }

    package func pending(_ whisperId: WhisperID, into command: inout RedisCommand) { command.append(joined.pending, whisperId.string, "}") }
    package func events(_ whisperId: WhisperID, into command: inout RedisCommand) { command.append(joined.events, whisperId.string, "}") }
    package func route(_ whisperId: WhisperID, into command: inout RedisCommand) { command.append(joined.route, whisperId.string, "}") }
    package func peers(_ whisperId: WhisperID, into command: inout RedisCommand) { command.append(joined.peers, whisperId.string, "}") }
    package func groupEpoch(_ groupId: GroupID, into command: inout RedisCommand) { command.append(joined.groupEpoch, groupId.string, "}") }
    package func pushWake(_ whisperId: WhisperID, into command: inout RedisCommand) { command.append(joined.pushWake, whisperId.string, "}") }

    /// The `ratelimit:` keys of a charge's buckets, in the charge's order.
    package func rateLimits(_ buckets: [RateLimitBucket], into command: inout RedisCommand) {
        for bucket in buckets { rateLimit(bucket, into: &command) }
    }

    /// `ratelimit:{<tag>}:<action>` of one bucket.
    package func rateLimit(_ bucket: RateLimitBucket, into command: inout RedisCommand) {
        command.append(joined.rateLimit, Self.rateLimitTag(bucket.subject), "}:", bucket.action.rawValue)
    }
}
