import WhisperRuntime
import WhisperStorage

/// Everything one event loop owns: its Redis connection and the sessions accepted on its
/// listeners. Touched only on its loop's thread, so none of it needs a lock.
final class LoopContext {
    let loop: EventLoop
    let shared: ServerShared
    let redis: RedisClient
    private var httpSessions: [UInt64: HTTPSession] = [:]
    private var webSockets: [UInt64: WebSocketSession] = [:]
    private var listeners: [Listener] = []

    init(loop: EventLoop, shared: ServerShared, redis: RedisClient) {
        self.loop = loop
        self.shared = shared
        self.redis = redis
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
        shared.metrics.webSocketClosed(slowConsumer: reason == .slowConsumer)
    }

    private func scheduleTick() {
        loop.schedule(afterNanoseconds: 1_000_000_000) { [weak self] in
            guard let self else { return }
            let now = self.loop.now
            for session in self.httpSessions.values { session.tick(now: now) }
            for session in self.webSockets.values { session.tick(now: now) }
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
