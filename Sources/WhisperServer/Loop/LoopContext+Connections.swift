import WhisperRuntime

/// This loop's listeners and the connections accepted on them: HTTP drivers until a
/// WebSocket upgrade, WebSocket drivers after it; the SIGTERM drain.
extension LoopContext {
    var connectionCount: Int { httpDrivers.count + webSockets.count }

    /// Binds this loop's listeners (one per listener address, SO_REUSEPORT) and starts the
    /// loop's timers. Only the public listener counts connections per address: the admin
    /// listener stays reachable to diagnose an address that exhausted its share.
    func start(publicAddress: SocketAddress, adminAddress: SocketAddress, tls: TLSContext?) throws(SystemError) {
        for (kind, address) in [(ListenerKind.public, publicAddress), (.admin, adminAddress)] {
            let listener = try Listener(loop: loop, address: address, tls: tls, limits: shared.connectionLimits,
                                        peers: kind == .public ? shared.publicPeers : nil) { [unowned self] in
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
        guard !shared.isDraining else {
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
    }

    func webSocketClosed(_ socket: WebSocketDriver, reason: CloseReason) {
        guard webSockets.removeValue(forKey: socket.connection.id) != nil else { return }
        registry.unbind(socket)
        shared.metrics.webSocketClosed(slowConsumer: reason == .slowConsumer)
    }

    /// SIGTERM: stop accepting, ask every WebSocket client to reconnect elsewhere (1001),
    /// let HTTP requests in progress finish.
    func drain() {
        for listener in listeners { listener.close() }
        listeners.removeAll()
        for socket in webSockets.values { socket.drain() }
        for driver in httpDrivers.values { driver.drain() }
    }

    /// Last resort at the end of the drain timeout.
    func closeAll() {
        for socket in webSockets.values { socket.connection.close() }
        for driver in httpDrivers.values { driver.connection.close() }
    }
}
