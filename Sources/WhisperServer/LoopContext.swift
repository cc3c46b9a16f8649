import WhisperOps
import WhisperProtocol
import WhisperRuntime
import WhisperServices
import WhisperStorage

/// Everything one event loop owns: its Redis connection, the services bound to it, the
/// routing table of authenticated sockets and the sessions accepted on its listeners.
/// Touched only on its loop's thread, so none of it needs a lock.
final class LoopContext {
    let loop: EventLoop
    /// This loop's position in the node (`LiveRoute.loop`).
    let index: Int
    let shared: ServerShared
    let redis: RedisClient
    let auth: AuthService
    let registry: ConnectionRegistry
    let recipients: RecipientDirectory
    private(set) lazy var messaging = makeMessagingService()
    /// One per loop, shared by the services (its hit names must be unique per instance).
    private let rateLimiter: RateLimiter
    let messageStore: RedisMessageStore
    let presence: RedisPresence
    private var httpSessions: [UInt64: HTTPSession] = [:]
    private var webSockets: [UInt64: WebSocketSession] = [:]
    private var listeners: [Listener] = []

    init(loop: EventLoop, index: Int, shared: ServerShared, redis: RedisClient) {
        self.loop = loop
        self.index = index
        self.shared = shared
        self.redis = redis
        self.registry = ConnectionRegistry(node: shared.nodeId, authenticatedGauge: shared.metrics.authenticatedConnections)
        let rateLimiter = RateLimiter(limits: shared.config.rateLimits,
                                      store: RedisRateLimitStore(redis: redis, keys: shared.redisKeys),
                                      metrics: shared.metrics.base)
        self.rateLimiter = rateLimiter
        self.auth = LoopContext.makeAuthService(loop: loop, shared: shared, redis: redis, rateLimiter: rateLimiter)
        let limits = Limits.default
        let pendingTTLMillis = limits.pendingTTLSeconds * 1000
        self.recipients = RecipientDirectory(identities: PostgresIdentityStore(pool: shared.postgres, loop: loop),
                                             now: Clock.epochMillis)
        self.messageStore = RedisMessageStore(
            redis: redis, keys: shared.redisKeys, node: shared.nodeId,
            settings: .init(pendingTTLMillis: pendingTTLMillis, peerTTLMillis: limits.directPeerWindowSeconds * 1000,
                            maxPendingPerUser: shared.config.maxPendingPerUser, eventTTLMillis: pendingTTLMillis,
                            maxEventsPerUser: limits.maxKeptEventsPerUser))
        self.presence = RedisPresence(redis: redis, keys: shared.redisKeys, node: shared.nodeId,
                                      settings: .init(pendingTTLMillis: pendingTTLMillis))
        registry.onLeave = { [unowned self] socket, whisperId in self.wentOffline(socket, as: whisperId) }
    }

    private func makeMessagingService() -> MessagingService {
        MessagingService(settings: .init(timestampSkewMillis: Limits.default.timestampSkewMillis), store: messageStore,
                         router: LoopRouter(context: self), recipients: recipients, rateLimiter: rateLimiter,
                         verifier: SignatureVerifier(histogram: shared.metrics.base.ed25519Verify), log: shared.log,
                         metrics: shared.metrics.base, now: Clock.epochMillis)
    }

    private static func makeAuthService(loop: EventLoop, shared: ServerShared, redis: RedisClient,
                                        rateLimiter: RateLimiter) -> AuthService {
        let config = shared.config
        let keys = shared.redisKeys
        let settings = AuthService.Settings(challengeTTLSeconds: Int64(config.challengeTTLSeconds),
                                            sessionTTLSeconds: Int64(config.sessionTTLSeconds),
                                            maxMintAttempts: Limits.default.maxWhisperIDMintAttempts)
        return AuthService(settings: settings, challenges: RedisChallengeStore(redis: redis, keys: keys),
                           sessions: RedisSessionStore(redis: redis, keys: keys),
                           identities: PostgresIdentityStore(pool: shared.postgres, loop: loop),
                           rateLimiter: rateLimiter, log: shared.log, metrics: shared.metrics.base, now: Clock.epochMillis)
    }

    /// A revocation notice from any node (through `RevocationListener`). A ban also makes
    /// the identity's cached recipient status stale.
    func applyRevocation(_ notice: RevocationNotice) {
        if notice.reason == .banned, let whisperId = WhisperID.validate(notice.whisperId) { recipients.forget(whisperId) }
        registry.apply(notice, now: loop.now)
    }

    // MARK: Presence and live delivery

    func route(of socket: WebSocketSession) -> LiveRoute {
        LiveRoute(node: shared.nodeId, loop: index, connection: socket.connection.id)
    }

    /// `socket` now holds `whisperId`: frames for the user are routed here from now on, and
    /// the events kept while it was offline are sent first, in order. `then` runs after.
    func cameOnline(_ socket: WebSocketSession, as whisperId: WhisperID, then: @escaping () -> Void) {
        presence.online(whisperId, at: route(of: socket)) { [shared] result in
            switch result {
            case .success(let events):
                for frame in events { socket.send(frame) }
            case .failure(let error):
                shared.log.warn("presence_online_failed", connId: socket.connection.id, whisperId: whisperId.string,
                                ["reason": .string(error.description)])
            }
            then()
        }
    }

    private func wentOffline(_ socket: WebSocketSession, as whisperId: WhisperID) {
        presence.offline(whisperId, at: route(of: socket)) { [shared] result in
            if case .failure(let error) = result {
                shared.log.warn("presence_offline_failed", connId: socket.connection.id, whisperId: whisperId.string,
                                ["reason": .string(error.description)])
            }
        }
    }

    /// Writes a routed frame to `user`'s sockets on this loop. Nobody there (the socket just
    /// closed): a message stays in the pending queue; an event is kept for the next login.
    func deliverLocal(_ frame: [UInt8], to user: WhisperID, kind: DeliveryKind, receivedAtMicros: Int64) {
        let sockets = registry.sockets(of: user)
        guard !sockets.isEmpty else {
            guard kind == .event else { return }
            messageStore.keepEvent(frame, for: user) { [shared] result in
                if case .failure(let error) = result {
                    shared.log.warn("event_keep_failed", whisperId: user.string, ["reason": .string(error.description)])
                }
            }
            return
        }
        for socket in sockets { socket.send(frame) }
        guard kind == .message else { return }
        shared.metrics.deliveredLive(receivedAtMicros: receivedAtMicros)
        if shared.log.isEnabled(.info) {
            shared.log.info("message_delivered", connId: sockets.first?.connection.id, whisperId: user.string,
                            ["path": "live", "bytes": .int(frame.count)])
        }
    }

    /// After the revocation subscriber (re)connected: notices may have been lost, so check
    /// every cached session against Redis and forget those that died.
    func revalidateSessions() {
        for socket in registry.authenticatedSockets {
            guard let session = socket.authenticated else { continue }
            auth.isStillValid(session) { [registry] result in
                guard case .success(false) = result, socket.authenticated?.hash == session.hash else { return }
                registry.unbind(socket)
            }
        }
    }

    var connectionCount: Int { httpSessions.count + webSockets.count }

    /// Binds this loop's listeners (one per listener address, SO_REUSEPORT) and starts the
    /// once-a-second housekeeping tick.
    func start(publicAddress: SocketAddress, adminAddress: SocketAddress, tls: TLSContext?) throws(SystemError) {
        for (kind, address) in [(ListenerKind.public, publicAddress), (.admin, adminAddress)] {
            let listener = try Listener(loop: loop, address: address, tls: tls, limits: shared.connectionLimits) { [unowned self] in
                self.accepted($0, on: kind)
            }
            try listener.start()
            listeners.append(listener)
        }
        scheduleTick()
        if index == 0 { heartbeat() }
    }

    /// Loop 0 of every node: renew the node's liveness key (routes to a dead node are
    /// ignored), sweep expired pending queues, refresh `whisper_pending_messages`.
    private func heartbeat() {
        guard redis.isConnected else {
            // Still connecting (start-up) or reconnecting: the Redis client logs that already.
            loop.schedule(afterNanoseconds: 200_000_000) { [weak self] in self?.heartbeat() }
            return
        }
        presence.heartbeat { [weak self] result in
            guard let self else { return }
            switch result {
            case .success(let count): self.shared.metrics.base.pendingMessages.set(Int(clamping: max(0, count)))
            case .failure(let error): self.shared.log.warn("heartbeat_failed", ["reason": .string(error.description)])
            }
            var delay: UInt64 = 5_000_000_000
            if case .failure = result { delay = 1_000_000_000 }
            self.loop.schedule(afterNanoseconds: delay) { [weak self] in self?.heartbeat() }
        }
    }

    func boundPort(_ kind: ListenerKind) -> Int? {
        let index = kind == .public ? 0 : 1
        return listeners.indices.contains(index) ? listeners[index].address.port : nil
    }

    private func accepted(_ connection: Connection, on kind: ListenerKind) {
        guard !shared.isDraining else {
            connection.close()
            return
        }
        let session = HTTPSession(connection: connection, listener: kind, context: self)
        connection.delegate = session
        httpSessions[connection.id] = session
    }

    func httpSessionClosed(_ session: HTTPSession) {
        httpSessions[session.connection.id] = nil
    }

    func httpSessionUpgraded(_ session: HTTPSession, to webSocket: WebSocketSession) {
        httpSessions[session.connection.id] = nil
        webSockets[webSocket.connection.id] = webSocket
        shared.metrics.webSocketOpened()
    }

    func webSocketClosed(_ session: WebSocketSession, reason: CloseReason) {
        guard webSockets.removeValue(forKey: session.connection.id) != nil else { return }
        registry.unbind(session)
        shared.metrics.webSocketClosed(slowConsumer: reason == .slowConsumer)
    }

    private func scheduleTick() {
        loop.schedule(afterNanoseconds: 1_000_000_000) { [weak self] in
            guard let self else { return }
            let now = self.loop.now
            for session in self.httpSessions.values { session.tick(now: now) }
            for session in self.webSockets.values { session.tick(now: now) }
            self.registry.prune(now: now)
            self.scheduleTick()
        }
    }

    /// SIGTERM: stop accepting, ask every WebSocket client to reconnect elsewhere (1001),
    /// let HTTP requests in progress finish.
    func drain() {
        for listener in listeners { listener.close() }
        listeners.removeAll()
        for session in webSockets.values { session.drain() }
        for session in httpSessions.values { session.drain() }
    }

    /// Last resort at the end of the drain timeout.
    func closeAll() {
        for session in webSockets.values { session.connection.close() }
        for session in httpSessions.values { session.connection.close() }
    }
}
