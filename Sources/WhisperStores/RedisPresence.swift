import WhisperProtocol
import WhisperServices
import WhisperStorage

/// Which socket holds each identity (`route:{whisperId}`), what its direct peers were told
/// of it (`presence:{whisperId}`, `PresenceScripts`), node liveness (`node:{id}`, `nodes`)
/// and the kept events of offline users, in Redis. One per loop.
///
/// Every step touches one hash slot (issue #27), in an order that keeps a node dying between
/// two of them harmless: a socket's user joins `node-users:{node}` in the same round trip as
/// (and on one Redis before) its route is set, so a dead node's sweep finds everyone it may
/// have routed; an announcement claimed from `presence-due` keeps its entry, pushed a lease
/// ahead, until it was made, so a node dying before it announced leaves it to the next sweep.
/// What a dead node can lose is a frame in flight, as a lost link always could.
package final class RedisPresence: PresenceStore {
    /// The `Limits` the scripts take, in their units.
    private struct Settings {
        let nodeTTLMillis: Int64
        let pendingTTLMillis: Int64
        let offlineGraceMillis: Int64
        let presenceSweepBatch: Int
        /// How long a claimed due announcement stays with the node that claimed it.
        let claimLeaseMillis: Int64 = 30_000

        init(_ limits: Limits) {
            nodeTTLMillis = Int64(limits.nodeTTLSeconds) * 1000
            pendingTTLMillis = limits.pendingTTLSeconds * 1000
            offlineGraceMillis = limits.presenceOfflineGraceMillis
            presenceSweepBatch = limits.presenceSweepBatch
        }
    }

    private let redis: RedisClient
    private let keys: RedisKeys
    private let node: String
    private let settings: Settings
    private let router: RedisRouter
    /// The settings every deciding step takes at the end of its ARGV.
    private let decideSettings: [[UInt8]]
    /// This loop listed the node in `nodes` (once, before its first login; the sweeps keep it).
    private var listedInNodes = false
    /// Loop 0's: the other loops never heartbeat.
    private lazy var pendingSweep = RedisPendingSweep(redis: redis, keys: keys, pendingTTLMillis: settings.pendingTTLMillis)

    package init(redis: RedisClient, keys: RedisKeys, node: String, limits: Limits) {
        self.redis = redis
        self.keys = keys
        self.node = node
        self.settings = Settings(limits)
        self.router = RedisRouter(redis: redis, keys: keys, node: node, limits: limits)
        self.decideSettings = PresenceScripts.DecideSetting.allCases.map { setting in
            switch setting {
            case .minInterval: RedisMessageStore.text(limits.presenceMinIntervalMillis)
            case .peerWindow: RedisMessageStore.text(limits.directPeerWindowSeconds * 1000)
            case .maxPeers: RedisMessageStore.text(Int64(limits.maxPresencePeers))
            case .recordTTL: RedisMessageStore.text(Int64(limits.presenceRecordTTLSeconds) * 1000)
            }
        }
    }

    /// `user` is now held by the socket at `route`: routes go there from now on. Answers the
    /// events kept while the user was offline, oldest first (kept in Redis until `forgetEvents`),
    /// the `online` announcement if one was made now, and whether calls are held for the user.
    package func online(_ user: WhisperID, at route: LiveRoute, completion: @escaping StoreCompletion<PresenceArrival>) {
        // The node is listed in `nodes` before it holds anyone (a node that dies before its
        // first sweep is still found: score 0 is always old enough to be checked; its sweeps
        // score it with Redis's time), and the user is in its `node-users` before the route.
        if !listedInNodes {
            redis.send([Array("ZADD".utf8), keys.nodes, Array("NX".utf8), Array("0".utf8), Array(node.utf8)]) { [weak self] result in
                if case .success(.integer) = result { self?.listedInNodes = true }
            }
        }
        redis.send([Array("SADD".utf8), keys.nodeUsers(node), Array(user.string.utf8)]) { _ in }
        let call = RedisScriptCall(PresenceScripts.arrive, keys: { (name: PresenceScripts.ArriveKey) in
            switch name {
            case .route: keys.route(user)
            case .presence: keys.presence(user)
            case .peers: keys.peers(user)
            case .blocked: keys.blocked(user)
            case .events: keys.events(user)
            case .pushWake: keys.pushWake(user)
            case .held: keys.heldCalls(user)
            }
        }, arguments: { (name: PresenceScripts.ArriveArgument) in
            switch name {
            case .route: Array(route.text.utf8)
            case .user: Array(user.string.utf8)
            }
        }, moreArguments: decideSettings)
        redis.evalScript(call) { [self] result in
            let arrival = RedisReplies.value(result).flatMap { value -> Result<(events: [[UInt8]], oldNode: String, held: Bool, decision: RedisValue), StoreError> in
                guard let items = value.array, items.count == 4, let events = items[0].array, let oldNode = items[1].string,
                      let held = items[2].integer
                else { return .failure(RedisReplies.unexpected(value)) }
                return .success((events.compactMap(\.bytes), oldNode, held != 0, items[3]))
            }
            switch arrival {
            case .failure(let error): completion(.failure(error))
            case .success(let arrival):
                if !arrival.oldNode.isEmpty, arrival.oldNode != node {
                    redis.send([Array("SREM".utf8), keys.nodeUsers(arrival.oldNode), Array(user.string.utf8)]) { _ in }
                }
                follow(arrival.decision, of: user, lease: nil) { announced in
                    completion(announced.map {
                        PresenceArrival(events: arrival.events, announcement: $0, hasHeldCalls: arrival.held)
                    })
                }
            }
        }
    }

    package func forgetEvents(_ user: WhisperID, _ events: [[UInt8]], completion: @escaping StoreCompletion<Void>) {
        guard let first = events.first else { return completion(.success(())) }
        let call = RedisScriptCall(PresenceScripts.forgetEvents, keys: { (_: PresenceScripts.ForgetEventsKey) in keys.events(user) },
                                   arguments: { (name: PresenceScripts.ForgetEventsArgument) in
            switch name {
            case .count: RedisMessageStore.text(Int64(events.count))
            case .first: first
            }
        })
        redis.evalScript(call) { result in completion(RedisReplies.value(result).map { _ in () }) }
    }

    /// The socket at `route` no longer holds `user` (unless a newer socket took over); the
    /// `offline` announcement waits for the grace period, unless that is zero.
    package func offline(_ user: WhisperID, at route: LiveRoute, completion: @escaping StoreCompletion<PresenceAnnouncement?>) {
        let call = RedisScriptCall(PresenceScripts.leave, keys: userKeys(user), arguments: { (name: PresenceScripts.LeaveArgument) in
            switch name {
            case .route: Array(route.text.utf8)
            case .user: Array(user.string.utf8)
            case .grace: RedisMessageStore.text(settings.offlineGraceMillis)
            }
        }, moreArguments: decideSettings)
        redis.evalScript(call) { [self] result in
            switch RedisReplies.value(result) {
            case .failure(let error): completion(.failure(error))
            case .success(let decision):
                // A socket that no longer held the route changed nothing: a newer login owns it.
                if decision.array?.first?.string == "elsewhere" { return completion(.success(nil)) }
                redis.send([Array("SREM".utf8), keys.nodeUsers(node), Array(user.string.utf8)]) { _ in }
                follow(decision, of: user, lease: nil, completion: completion)
            }
        }
    }

    /// Takes the users of dead nodes offline and makes the announcements that are due;
    /// answers those with peers on this node.
    package func sweep(completion: @escaping StoreCompletion<[PresenceAnnouncement]>) {
        let call = RedisScriptCall(PresenceScripts.nodes, keys: { (_: PresenceScripts.NodesKey) in keys.nodes },
                                   arguments: { (name: PresenceScripts.NodesArgument) in
            switch name {
            case .node: Array(node.utf8)
            case .nodeTTL: RedisMessageStore.text(settings.nodeTTLMillis)
            }
        })
        redis.evalScript(call) { [self] result in
            switch RedisReplies.value(result) {
            case .failure(let error): completion(.failure(error))
            case .success(let value):
                guard let candidates = value.array?.compactMap(\.string) else { return completion(.failure(RedisReplies.unexpected(value))) }
                let gathered = Gathered<PresenceAnnouncement>(completion)
                for candidate in candidates { takeOver(candidate, gathered) }
                announceDue(gathered)
                gathered.sent()
            }
        }
    }

    /// The users of `dead` (if it is dead), each rechecked in its own slot; the node leaves
    /// `nodes` once none is left.
    private func takeOver(_ dead: String, _ gathered: Gathered<PresenceAnnouncement>) {
        gathered.add()
        let call = RedisScriptCall(PresenceScripts.deadNode, keys: { (name: PresenceScripts.DeadNodeKey) in
            switch name {
            case .node: keys.node(dead)
            case .users: keys.nodeUsers(dead)
            }
        }, arguments: { (_: PresenceScripts.DeadNodeArgument) in RedisMessageStore.text(Int64(settings.presenceSweepBatch)) })
        redis.evalScript(call) { [self] result in
            switch RedisReplies.value(result) {
            case .failure(let error): gathered.done(.failure(error))
            case .success(let value):
                guard let items = value.array, items.count == 2, let users = items[0].array?.compactMap(\.string),
                      let left = items[1].integer
                else { return gathered.done(.failure(RedisReplies.unexpected(value))) }
                for user in users.compactMap(WhisperID.validate) { recheck(user, deadNode: dead, lease: nil, gathered) }
                if left == 0 { redis.send([Array("ZREM".utf8), keys.nodes, Array(dead.utf8)]) { _ in } }
                gathered.done(.success(nil))
            }
        }
    }

    /// Claims the due announcements, then rechecks each user in its slot.
    private func announceDue(_ gathered: Gathered<PresenceAnnouncement>) {
        gathered.add()
        let call = RedisScriptCall(PresenceScripts.claim, keys: { (_: PresenceScripts.DueKey) in keys.presenceDue },
                                   arguments: { (name: PresenceScripts.ClaimArgument) in
            switch name {
            case .batch: RedisMessageStore.text(Int64(settings.presenceSweepBatch))
            case .lease: RedisMessageStore.text(settings.claimLeaseMillis)
            }
        })
        redis.evalScript(call) { [self] result in
            switch RedisReplies.value(result) {
            case .failure(let error): gathered.done(.failure(error))
            case .success(let value):
                guard let items = value.array?.compactMap(\.string), let lease = items.first else {
                    return gathered.done(.failure(RedisReplies.unexpected(value)))
                }
                for user in items.dropFirst().compactMap(WhisperID.validate) { recheck(user, deadNode: "", lease: lease, gathered) }
                gathered.done(.success(nil))
            }
        }
    }

    private func recheck(_ user: WhisperID, deadNode: String, lease: String?, _ gathered: Gathered<PresenceAnnouncement>) {
        gathered.add()
        let call = RedisScriptCall(PresenceScripts.recheck, keys: userKeys(user), arguments: { (name: PresenceScripts.RecheckArgument) in
            switch name {
            case .user: Array(user.string.utf8)
            case .deadNode: Array(deadNode.utf8)
            }
        }, moreArguments: decideSettings)
        redis.evalScript(call) { [self] result in
            switch RedisReplies.value(result) {
            case .failure(let error): gathered.done(.failure(error))
            case .success(let decision): follow(decision, of: user, lease: lease) { gathered.done($0) }
            }
        }
    }

    private func userKeys(_ user: WhisperID) -> (PresenceScripts.UserKey) -> [UInt8] {
        { [keys] name in
            switch name {
            case .route: keys.route(user)
            case .presence: keys.presence(user)
            case .peers: keys.peers(user)
            case .blocked: keys.blocked(user)
            }
        }
    }

    /// Carries out a user step's decision (`PresenceScripts`): `presence-due` updated, and an
    /// announcement routed to each peer — answered with the peers whose sockets are on this
    /// node (the caller writes those), the others published to their nodes.
    private func follow(_ decision: RedisValue, of user: WhisperID, lease: String?,
                        completion: @escaping StoreCompletion<PresenceAnnouncement?>) {
        guard let items = decision.array, let kind = items.first?.string else {
            return completion(.failure(RedisReplies.unexpected(decision)))
        }
        let due: String?
        switch kind {
        case "told": due = nil
        case "due":
            guard items.count == 2, let at = items[1].integer else { return completion(.failure(RedisReplies.unexpected(decision))) }
            due = String(at)
        case "announce":
            guard items.count >= 2, let frame = items[1].bytes else { return completion(.failure(RedisReplies.unexpected(decision))) }
            release(user, lease: lease, at: nil)
            return announce(frame, from: user, to: items.dropFirst(2).compactMap { $0.string.flatMap(WhisperID.validate) },
                            completion: completion)
        default:
            return completion(.failure(RedisReplies.unexpected(decision)))
        }
        release(user, lease: lease, at: due)
        redis.loop.deferToEndOfIteration { completion(.success(nil)) }
    }

    private func release(_ user: WhisperID, lease: String?, at: String?) {
        let call = RedisScriptCall(PresenceScripts.release, keys: { (_: PresenceScripts.DueKey) in keys.presenceDue },
                                   arguments: { (name: PresenceScripts.ReleaseArgument) in
            switch name {
            case .user: Array(user.string.utf8)
            case .lease: Array((lease ?? "").utf8)
            case .at: Array((at ?? "").utf8)
            }
        })
        redis.evalScript(call) { (_: Result<RedisValue, RedisError>) in }
    }

    /// One step per peer (its block list and route), the frame published to the peers on
    /// other nodes.
    private func announce(_ frame: [UInt8], from user: WhisperID, to peers: [WhisperID],
                          completion: @escaping StoreCompletion<PresenceAnnouncement?>) {
        let gathered = Gathered<(user: WhisperID, route: LiveRoute)>({ result in
            completion(result.map { PresenceAnnouncement(frame: frame, peers: $0) })
        })
        for peer in peers {
            gathered.add()
            let call = RedisScriptCall(PresenceScripts.peer, keys: { (name: PresenceScripts.PeerKey) in
                switch name {
                case .blocked: keys.blocked(peer)
                case .route: keys.route(peer)
                }
            }, arguments: { (_: PresenceScripts.PeerArgument) in Array(user.string.utf8) })
            redis.evalScript(call) { [router] result in
                switch RedisReplies.value(result) {
                case .failure(let error): gathered.done(.failure(error))
                case .success(let value):
                    guard let text = value.string else { return gathered.done(.failure(RedisReplies.unexpected(value))) }
                    if text.isEmpty { return gathered.done(.success(nil)) }  // the peer blocked the user
                    guard let routed = router.local(text) else { return gathered.done(.failure(RedisReplies.unexpected(value))) }
                    if case .local(let route)? = routed.routing { return gathered.done(.success((peer, route))) }
                    if let remote = routed.remote { router.publish(frame, to: peer, at: remote, kind: "s") { _ in } }
                    gathered.done(.success(nil))
                }
            }
        }
        gathered.sent()
    }

    /// Renews this node's liveness key, sweeps pending queues that expired whole
    /// (`RedisPendingSweep`), and answers the number of pending messages on all nodes.
    package func heartbeat(completion: @escaping StoreCompletion<Int64>) {
        redis.send([Array("SET".utf8), keys.node(node), Array("1".utf8), Array("PX".utf8),
                    RedisMessageStore.text(settings.nodeTTLMillis)]) { _ in }
        pendingSweep.run(completion: completion)
    }
}

/// What several steps of one operation found, gathered: the non-nil answers in the order
/// they came, or the first failure, once the last step (and `sent()`) has answered.
private final class Gathered<Item> {
    private var outstanding = 1
    private var items: [Item] = []
    private var failure: StoreError?
    private let completion: (Result<[Item], StoreError>) -> Void

    init(_ completion: @escaping (Result<[Item], StoreError>) -> Void) { self.completion = completion }

    func add() { outstanding += 1 }
    func sent() { finish() }

    func done(_ result: Result<Item?, StoreError>) {
        switch result {
        case .success(let item?): items.append(item)
        case .success(nil): break
        case .failure(let error): failure = failure ?? error
        }
        finish()
    }

    private func finish() {
        outstanding -= 1
        guard outstanding == 0 else { return }
        if let failure { return completion(.failure(failure)) }
        completion(.success(items))
    }
}
