import WhisperProtocol
import WhisperRuntime
import WhisperServices
import WhisperWebSocket

/// One upgraded WebSocket: executes the actions of the pure `WebSocketConnection` state
/// machine against the socket and hands complete text messages to the gateway.
final class WebSocketDriver: ConnectionDelegate {
    let connection: Connection
    private var state: WebSocketConnection
    unowned let context: LoopContext
    /// The session this socket proved (`register_ack`, `session_refreshed`, or the token of
    /// a privileged frame), so later frames with the same token need no Redis round trip.
    /// Only `ConnectionRegistry` sets or clears it; revocation, refresh and logout do so at once.
    var authenticated: SessionRecord?
    /// The last session token text this socket presented and its SHA-256: a phone presents
    /// the same token in every privileged frame, and hashing it each time was measurable
    /// (docs/benchmarks.md). Compared in constant time; independent of `authenticated`.
    var tokenMemo: (text: [UInt8], hash: SessionHash)?
    /// Requests whose replies are still being produced (Redis/PostgreSQL round trips). A
    /// draining server closes the socket only once this reaches zero.
    private(set) var inFlight = 0
    /// Between a login's bind and its `register_ack` (while the route moves here): a revocation
    /// arriving then is held in `revocationAfterAck` and applied right after the ack, so every
    /// proof is answered before its socket hears that a later login took over; frames routed
    /// here then wait in `heldUntilAck` (see `deliver`).
    var ackPending = false
    var revocationAfterAck: (reason: RevocationReason, code: UInt16)?
    /// Live frames routed here while `ackPending`, with whether each is an event; sent after
    /// the ack and the frames kept while offline (`LoopContext.releaseHeld`). Bounded by the
    /// socket's output cap.
    private var heldUntilAck: [(frame: [UInt8], isEvent: Bool)] = []
    private var heldBytes = 0
    private var closeWhenIdle: (code: UInt16, reason: String)?

    init(connection: Connection, state: WebSocketConnection, context: LoopContext) {
        self.connection = connection
        self.state = state
        self.context = context
    }

    var peerIP: String { client.ip }

    /// Who is asking, for the services: the IP (rate limits) and this socket (revocations
    /// spare the socket that caused them). Formatted once: every frame needs it.
    private(set) lazy var client = ClientRef(ip: connection.peer.ip,
                                             connection: ConnectionRef(node: context.shared.nodeId, connection: connection.id))

    func connection(_ connection: Connection, didRead bytes: UnsafeRawBufferPointer) {
        execute(state.receive(bytes, now: connection.loop.now))
    }

    func receive(_ bytes: [UInt8]) {
        execute(state.receive(bytes, now: connection.loop.now))
    }

    func connectionDidClose(_ connection: Connection, reason: CloseReason) {
        context.webSocketClosed(self, reason: reason)
    }

    private func execute(_ actions: [WebSocketAction]) {
        for action in actions {
            guard !connection.isClosed else { return }
            switch action {
            case .deliverText(let message):
                context.shared.gateway.handle(message, from: self)
            case .deliverBinary(let message):
                // Only reachable in the test-only echo mode (`acceptsBinaryMessages`).
                if let encoded = state.sendBinary(message) { connection.write(encoded) }
            case .send(let bytes):
                connection.write(bytes)
            case .close(let afterFlush):
                if afterFlush { connection.closeWhenFlushed() } else { connection.close(reason: .closedByServer) }
            }
        }
    }

    /// Sends one text message (a JSON frame). Handed over (`consuming`), a frame's bytes become
    /// the WebSocket frame in place (`WebSocketFrameEncoder.textMessage`). False when the
    /// socket takes no more (closed, or closing: its close frame is already queued).
    @discardableResult
    func send(_ frame: consuming [UInt8]) -> Bool {
        guard !connection.isClosed, let encoded = state.sendText(frame) else { return false }
        return connection.write(encoded)
    }

    /// A frame routed to this socket's user (a message, a receipt, an event): written at once,
    /// or — between a login's bind and its ack — held, so a login always hears its
    /// `register_ack` first. False when the socket does not take it (as `send`), or the held
    /// frames would pass the output cap.
    func deliver(_ frame: consuming [UInt8], isEvent: Bool) -> Bool {
        guard ackPending else { return send(frame) }
        guard !connection.isClosed, heldBytes + frame.count <= connection.limits.maxOutputBytes else { return false }
        heldBytes += frame.count
        heldUntilAck.append((frame, isEvent))
        return true
    }

    /// The frames held until the ack, in the order they came; the socket holds none after.
    func takeHeld() -> [(frame: [UInt8], isEvent: Bool)] {
        defer { heldUntilAck = []; heldBytes = 0 }
        return heldUntilAck
    }

    /// Starts the close handshake with `code` (1001 on drain, 4001/4003 on revocation).
    func close(code: UInt16, reason: String) {
        execute(state.initiateClose(code: WebSocketCloseCode(rawValue: code), reason: reason, now: connection.loop.now))
    }

    /// The session was revoked (a newer login, a ban): tell the client why, then close
    /// with 4001 / 4003 (docs/protocol.md "Identity and sessions").
    func revoke(reason: RevocationReason, code: UInt16) {
        send(OutboundFrame.encode(type: "session_revoked", requestId: nil) { $0.member("reason", reason.rawValue) })
        close(code: code, reason: "session revoked")
    }

    /// Brackets a request whose reply arrives later.
    func beginRequest() { inFlight += 1 }

    func endRequest() {
        inFlight -= 1
        if inFlight == 0, let pending = closeWhenIdle {
            closeWhenIdle = nil
            close(code: pending.code, reason: pending.reason)
        }
    }

    /// Drain: close with 1001 once in-flight requests have been answered (a send whose script
    /// was issued still gets its `message_accepted`). The reason carries the reconnect hint
    /// (docs/protocol.md "Close codes").
    func drain(retryAfterMillis: Int) {
        let reason = #"{"reason":"server_restarting","retryAfterMs":\#(retryAfterMillis)}"#
        if inFlight == 0 {
            close(code: 1001, reason: reason)
        } else {
            closeWhenIdle = (1001, reason)
        }
    }

    func tick(now: UInt64) {
        execute(state.tick(now: now))
    }
}
