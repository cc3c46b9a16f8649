import WhisperOps
import WhisperProtocol
import WhisperServices
import WhisperStorage

/// Every Redis key and channel the server uses, under the configured prefix
/// (`WHISPER_REDIS_PREFIX`, default `whisper:`). docs/operations.md lists them.
///
/// Key layout 2 (issue #27): every key that belongs to one user, call, group or node carries
/// that id as a Redis Cluster hash tag — `pending:{<wid>}` — so a user's keys share a slot
/// and a script on them runs on one shard. The scripts get a tagged family as its prefix
/// ending in `{` (`…Prefix`) and close the tag with `tagged(prefix, id)` (MessageScripts'
/// prelude). `RedisKeyLayout` moves a Redis written by layout 1 over.
package struct RedisKeys: Sendable {
    package let prefix: String
    /// The names the per-message scripts use, joined with the prefix once (RedisKeys+Commands.swift).
    package let joined: JoinedNames

    package init(prefix: String) {
        self.prefix = prefix
        joined = JoinedNames(prefix: prefix)
    }

    /// `layout` → "2": the key layout this Redis holds (`RedisKeyLayout`). No TTL: one key.
    package var layout: String { prefix + "layout" }

    /// `challenge:{challengeId}` → challenge bytes + the deviceId/whisperId they were issued
    /// for; TTL = `WHISPER_CHALLENGE_TTL_SECONDS`.
    package func challenge(_ id: CanonicalUUID) -> [UInt8] { bytes("challenge:" + id.string) }

    /// `session:{sha256(token) hex}` → hash {wid, did, plat, exp, spk}; TTL = session lifetime.
    package var sessionPrefix: String { prefix + "session:" }
    package func session(_ hash: SessionHash) -> [UInt8] { Array((sessionPrefix + hash.hex).utf8) }

    /// `sessions:{whisperId}` → set of session hashes of the identity (for revocation).
    package func sessionIndex(_ whisperId: WhisperID) -> [UInt8] { tagged("sessions", whisperId.string) }

    /// `revoked:{whisperId}` → hash {v: the identity's revocation epoch, raised by each ban's or
    /// deletion's revocation, why: its reason}; a login that read an older epoch is refused.
    /// TTL one day (`RedisSessionStore.revokedMarkerTTLSeconds`), far longer than any login takes.
    /// (Older releases wrote `v` from a global `revocation-epoch`, no longer read; such a
    /// marker still works, the next revocation raises it above every value of that counter.)
    package func revoked(_ whisperId: WhisperID) -> [UInt8] { tagged("revoked", whisperId.string) }

    /// `revoking:{whisperId}` → set of session hashes out of the index whose deletion and
    /// notice have not finished (`SessionScripts`); TTL `RedisSessionStore.revokingTTLSeconds`.
    package func revoking(_ whisperId: WhisperID) -> [UInt8] { tagged("revoking", whisperId.string) }

    /// `ratelimit:{<tag>}:<action>` → sorted set of recent hits (docs/operations.md "Redis keys").
    /// The tag is the Whisper ID for an `id:` subject (the user's own slot) and the subject
    /// itself (`ip:<address>`) otherwise.
    package func rateLimit(subject: String, action: RateLimitAction) -> [UInt8] {
        Array((joined.rateLimit + Self.rateLimitTag(subject) + "}:" + action.rawValue).utf8)
    }

    package static func rateLimitTag(_ subject: String) -> String {
        subject.hasPrefix("id:") ? String(subject.dropFirst(3)) : subject
    }

    /// The `ratelimit:` keys of every bucket a script charges, in the charge's order.
    package func rateLimits(_ buckets: [RateLimitBucket]) -> [[UInt8]] {
        buckets.map { rateLimit(subject: $0.subject, action: $0.action) }
    }

    // MARK: Messaging (MessageScripts)

    /// `pending:{whisperId}` → stream of `message_received` payloads (field `m`), entry ids
    /// are the fetch cursors; entries older than the pending TTL are trimmed.
    package var pendingPrefix: String { joined.pending }
    package func pending(_ whisperId: WhisperID) -> [UInt8] { Array((joined.pending + whisperId.string + "}").utf8) }

    /// `msg:{<to>}:<from>:<messageId lowercase>` → "`entryId` `messageId as the sender spelt it`"
    /// (records written before 2026-11-27 may end in ` r` or ` d`, which nothing reads now):
    /// the idempotency record of one envelope (contract §15: a group message's envelopes share
    /// the `messageId`) and where it is queued; TTL = pending TTL. Tagged
    /// by the recipient, whose queue it indexes (a Redis Cluster hash tag).
    package func message(to: WhisperID, from: WhisperID, id: CanonicalUUID) -> [UInt8] {
        Array((joined.messageTag + to.string + "}:" + from.string + ":" + id.string).utf8)
    }

    /// `msg:<from>:<messageId lowercase>` → "`to` `entryId`[ d]": the record servers before
    /// 2026-11-26 wrote. Receipts and report checks still find messages accepted under it
    /// until the last of them expires (one pending TTL after the upgrade); then it can go.
    package func legacyMessage(from: WhisperID, id: CanonicalUUID) -> [UInt8] { Array((joined.message + from.string + ":" + id.string).utf8) }

    /// `group-charge:{<from>}:<groupId>:<messageId lowercase>` → set when the first envelope of
    /// a group message was charged its SEND hit; the others go free (contract §15). TTL =
    /// pending TTL. Tagged by the sender, like its rate-limit logs.
    package func groupCharge(from: WhisperID, groupId: GroupID, id: CanonicalUUID) -> [UInt8] {
        Array((joined.groupChargeTag + from.string + "}:" + groupId.string + ":" + id.string).utf8)
    }

    /// `events:{whisperId}` → list of frames kept for an offline user (`message_delivered`),
    /// sent after its next login.
    package func events(_ whisperId: WhisperID) -> [UInt8] { Array((joined.events + whisperId.string + "}").utf8) }

    /// `route:{whisperId}` → `node:loop:connection` of the socket holding the identity's session.
    package var routePrefix: String { joined.route }
    package func route(_ whisperId: WhisperID) -> [UInt8] { Array((joined.route + whisperId.string + "}").utf8) }

    // MARK: Presence (PresenceScripts)

    /// `presence:{whisperId}` → hash {s: status the peers were last told, t: when (ms)};
    /// TTL `Limits.presenceRecordTTLSeconds`, renewed at every login, logout and announcement.
    package func presence(_ whisperId: WhisperID) -> [UInt8] { tagged("presence", whisperId.string) }

    /// `presence-due` → sorted set of users whose status change waits for its announcement,
    /// scored by the time (ms) it becomes due.
    package var presenceDue: [UInt8] { bytes("presence-due") }

    /// `nodes` → sorted set of node ids, scored by their last presence sweep (ms): how a
    /// node finds the nodes that died.
    package var nodes: [UInt8] { bytes("nodes") }

    /// `node-users:{nodeId}` → set of users whose sockets that node holds (or held when it
    /// died): whom to announce offline when it dies.
    package func nodeUsers(_ node: String) -> [UInt8] { tagged("node-users", node) }

    /// `node:{nodeId}` exists while that node is alive (heartbeat with a short TTL).
    package var nodePrefix: String { joined.node }
    package func node(_ id: String) -> [UInt8] { tagged("node", id) }

    /// `peers:{whisperId}` → sorted set of direct peers, scored by the last message time.
    package var peersPrefix: String { joined.peers }
    package func peers(_ whisperId: WhisperID) -> [UInt8] { Array((joined.peers + whisperId.string + "}").utf8) }

    /// What the presence scripts build a user's `blocked:` key from (`blocked(_:)`).
    package var blockedPrefix: String { joined.blockedTag }

    /// `typing:{to}:<from>` → set for `Limits.typingMinIntervalMillis` after a relayed signal;
    /// tagged by the recipient, whose step checks it (servers before 2026-11-27 tagged it by
    /// the sender: those keys live 2 s).
    package func typing(from: WhisperID, to: WhisperID) -> [UInt8] { bytes("typing:{" + to.string + "}:" + from.string) }

    /// `push-wake:{whisperId}` → "1" while a wake-up sent to the user coalesces later ones;
    /// TTL = `WHISPER_PUSH_COALESCE_SECONDS`; deleted when the user logs in.
    package func pushWake(_ whisperId: WhisperID) -> [UInt8] { Array((joined.pushWake + whisperId.string + "}").utf8) }

    /// The owed wake-ups are spread over this many pairs of keys (by the user's hash slot), so
    /// that on a Redis Cluster they are not one hot slot; a sweep visits them all.
    package static let pushOwedBuckets = 16

    package static func pushOwedBucket(of user: WhisperID) -> Int { RedisSlot.of(user.string) % pushOwedBuckets }

    /// `push-owed:{wakes-<bucket>}` → sorted set of users owed a wake-up (sent and not yet taken
    /// by the provider, or given up), scored by when (ms) it is due again (`WakeUpScripts`).
    package func pushOwed(bucket: Int) -> [UInt8] { tagged("push-owed", "wakes-\(bucket)") }

    /// `push-tries:{wakes-<bucket>}` → hash user → the owed wake-up's failed sends in a row; one
    /// slot with its bucket's `push-owed`.
    package func pushTries(bucket: Int) -> [UInt8] { tagged("push-tries", "wakes-\(bucket)") }

    /// `blocked:{whisperId}` → set of the identities this user blocked (a copy of PostgreSQL's
    /// `blocks`, loaded at login and kept in step by block/unblock): what the scripts check.
    package func blocked(_ whisperId: WhisperID) -> [UInt8] { tagged("blocked", whisperId.string) }

    // `pending-count:{<slot tag>}`, `pending-index:{<slot tag>}`: PendingSlots.swift.

    // MARK: Calls (CallScripts)

    /// `call:{callId lowercase}` → hash {caller, callee, cid (the id as the caller spelt it),
    /// phase r|a|e (ringing, answered, ended), offer (while ringing), rung 0|1, at (the route
    /// of the socket the offer was last written to)}.
    package var callPrefix: String { prefix + "call:{" }
    package func call(_ id: CanonicalUUID) -> [UInt8] { tagged("call", id.string) }

    /// `call-ice:{callId}` → list of the caller's `call_ice_candidate` frames while it rings,
    /// delivered after the held offer.
    package var callCandidatesPrefix: String { prefix + "call-ice:{" }
    package func callCandidates(_ id: CanonicalUUID) -> [UInt8] { tagged("call-ice", id.string) }

    /// `calls-held:{whisperId}` → sorted set of calls ringing for the user, scored by deadline.
    package var heldCallsPrefix: String { prefix + "calls-held:{" }
    package func heldCalls(_ whisperId: WhisperID) -> [UInt8] { tagged("calls-held", whisperId.string) }

    /// `calls:deadlines` → sorted set of ringing calls by ring deadline (ms), swept by every node.
    package var callDeadlines: [UInt8] { bytes("calls:deadlines") }

    /// `calls:confirm` → sorted set of offers written to a live-looking socket, by confirmation
    /// deadline (ms), swept by every node (`CallScripts`).
    package var callConfirmDeadlines: [UInt8] { bytes("calls:confirm") }

    /// Prefix of `events:` for scripts that learn the user from stored state.
    package var eventsPrefix: String { joined.events }

    /// `ready:{nodeId}` → the last readiness probe's number (a short TTL): `/ready`'s write and read.
    /// Pub/sub channel `ready:{nodeId}`: that node's readiness canary (docs/operations.md
    /// "Health, readiness, metrics"). A key and a channel share the name without clashing.
    package func readiness(_ node: String) -> [UInt8] { tagged("ready", node) }

    /// Pub/sub channel `deliver:{nodeId}`: frames for sockets held by that node.
    package func deliveryChannel(_ node: String) -> [UInt8] { tagged("deliver", node) }

    /// Pub/sub channel of `RevocationNotice`s, listened to by every node.
    package var revocationChannel: [UInt8] { bytes("session-revocations") }

    // MARK: Groups (GroupScripts)

    /// `group-epoch:{groupId}` → the group's membership epoch, a token replaced by every
    /// announced change (docs/protocol.md "Groups"); deleted with the group. No TTL: one small key per group.
    package func groupEpoch(_ groupId: GroupID) -> [UInt8] { Array((joined.groupEpoch + groupId.string + "}").utf8) }

    /// Pub/sub channel of group changes (payload: the groupId), listened to by every node:
    /// each loop drops the group from its membership cache.
    package var groupChangeChannel: [UInt8] { bytes("group-changes") }

    /// Pub/sub channel of lifted bans (a Whisper ID per message), listened to by every node:
    /// each loop forgets the identity's cached recipient status.
    package var banLiftedChannel: [UInt8] { bytes("ban-lifted") }

    /// `attachment-gc-lease` → the node running the periodic attachment GC; PX = the GC
    /// interval, so one node per interval runs it (docs/operations.md "Attachments").
    package var attachmentGCLease: [UInt8] { bytes("attachment-gc-lease") }

    private func bytes(_ suffix: String) -> [UInt8] { Array((prefix + suffix).utf8) }

    /// `<family>:{<id>}`.
    private func tagged(_ family: String, _ id: String) -> [UInt8] { Array((prefix + family + ":{" + id + "}").utf8) }
}
