import WhisperRuntime

/// This loop's listeners and the connections accepted on them: HTTP drivers until a
/// WebSocket upgrade, WebSocket drivers after it; the SIGTERM drain.
extension LoopContext {
    /// What the drain waits for: open connections, and routes whose release Redis has not answered yet.
    var outstandingWork: Int { httpDrivers.count + webSockets.count + pendingRouteReleases }

    /// Binds this loop's listeners (one per listener address, SO_REUSEPORT) and starts the
    /// loop's timers. Only the public listener counts connections per address (the admin
    /// listener stays reachable to diagnose an address that exhausted its share) and reads
    /// PROXY headers (balancers front the public port only).
    func start(publicAddress: SocketAddress, adminAddress: SocketAddress, tls: TLSContext?) throws(SystemError) {
        for (kind, address) in [(ListenerKind.public, publicAddress), (.admin, adminAddress)] {
            let listener = try Listener(loop: loop, address: address, tls: tls, limits: shared.connectionLimits,
                                        peers: kind == .public ? shared.publicPeers : nil,
                                        proxyProtocol: kind == .public ? shared.publicProxyProtocol : nil) { [unowned self] in
                self.accepted($0, on: kind)
            }
            try listener.start()
            listeners.append(listener)
        }
        startTimers()
    }

    func boundPort(_ kind: ListenerKind) -> Int? {
        let index = kind == .public ? 0 : 1
        return listeners.indices.contains(index) ? listeners[index].address.port : nil
    }

    private func accepted(_ connection: Connection, on kind: ListenerKind) {
        guard !shared.isClosing else {
            connection.close()
            return
        }
        let driver = HTTPDriver(connection: connection, listener: kind, context: self)
        connection.delegate = driver
        httpDrivers[connection.id] = driver
    }

    func httpDriverClosed(_ driver: HTTPDriver) {
        httpDrivers[driver.connection.id] = nil
    }

    func httpDriverUpgraded(_ driver: HTTPDriver, to webSocket: WebSocketDriver) {
        httpDrivers[driver.connection.id] = nil
        webSockets[webSocket.connection.id] = webSocket
        shared.metrics.webSocketOpened()
        if shared.isClosing { drainLater(webSocket, afterNanoseconds: 0) }
    }

    func webSocketClosed(_ socket: WebSocketDriver, reason: CloseReason) {
        guard webSockets.removeValue(forKey: socket.connection.id) != nil else { return }
        registry.unbind(socket)
        shared.metrics.webSocketClosed(slowConsumer: reason == .slowConsumer)
    }

    /// SIGTERM, after the grace: stop accepting, let HTTP requests in progress finish, and ask
    /// every WebSocket client to reconnect elsewhere (1001) at a random moment within
    /// `Limits.drainWindowSeconds`, so the other nodes take the reconnects spread out
    /// (docs/operations.md "Rolling restarts").
    func drain() {
        for listener in listeners { listener.close() }
        listeners.removeAll()
        for driver in httpDrivers.values { driver.drain() }
        let window = UInt64(shared.limits.drainWindowSeconds) * 1_000_000_000
        for socket in webSockets.values { drainLater(socket, afterNanoseconds: UInt64.random(in: 0...window)) }
    }

    private func drainLater(_ socket: WebSocketDriver, afterNanoseconds delay: UInt64) {
        let retryAfterMillis = Int.random(in: 0...max(0, shared.limits.drainReconnectJitterMillis))
        loop.schedule(afterNanoseconds: delay) { [weak socket] in socket?.drain(retryAfterMillis: retryAfterMillis) }
    }

    /// Last resort at the end of the drain timeout.
    func closeAll() {
        for socket in webSockets.values { socket.connection.close() }
        for driver in httpDrivers.values { driver.connection.close() }
    }
}
