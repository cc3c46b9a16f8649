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
    let shared: ServerShared
    let redis: RedisClient
    let auth: AuthService
    let registry: ConnectionRegistry
    private var httpSessions: [UInt64: HTTPSession] = [:]
    private var webSockets: [UInt64: WebSocketSession] = [:]
    private var listeners: [Listener] = []

    init(loop: EventLoop, shared: ServerShared, redis: RedisClient) {
        self.loop = loop
        self.shared = shared
        self.redis = redis
        self.registry = ConnectionRegistry(node: shared.nodeId, authenticatedGauge: shared.metrics.authenticatedConnections)
        self.auth = LoopContext.makeAuthService(loop: loop, shared: shared, redis: redis)
    }

    private static func makeAuthService(loop: EventLoop, shared: ServerShared, redis: RedisClient) -> AuthService {
        let config = shared.config
        let keys = shared.redisKeys
        let rateLimiter = RateLimiter(limits: config.rateLimits, store: RedisRateLimitStore(redis: redis, keys: keys),
                                      metrics: shared.metrics.base)
        let settings = AuthService.Settings(challengeTTLSeconds: Int64(config.challengeTTLSeconds),
                                            sessionTTLSeconds: Int64(config.sessionTTLSeconds),
                                            maxMintAttempts: Limits.default.maxWhisperIDMintAttempts)
        return AuthService(settings: settings, challenges: RedisChallengeStore(redis: redis, keys: keys),
                           sessions: RedisSessionStore(redis: redis, keys: keys),
                           identities: PostgresIdentityStore(pool: shared.postgres, loop: loop),
                           rateLimiter: rateLimiter, log: shared.log, metrics: shared.metrics.base, now: Clock.epochMillis)
    }

    /// A revocation notice from any node (through `RevocationListener`).
    func applyRevocation(_ notice: RevocationNotice) {
        registry.apply(notice, now: loop.now)
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
