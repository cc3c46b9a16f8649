/// One server-side WebSocket connection as a pure state machine (RFC 6455 §5–§7).
///
/// The I/O driver feeds it received bytes and the monotonic time, and executes the returned
/// actions; no clock is read and no socket is touched here. A struct holding zlib state by
/// reference: keep exactly one copy per socket.
///
/// ```
///            receive Close → reply Close, close
///   ┌──────┐ ─────────────────────────────────────────────┐
///   │ open │ initiateClose → send Close  ┌─────────┐      ▼
///   └──────┘ ──────────────────────────▶ │ closing │ ─▶ closed
///      │  protocol error / idle timeout   └─────────┘  peer Close, error,
///      └── send Close(code), close ────────────────▶    or close timeout
/// ```
public struct WebSocketConnection {
    public enum State: Equatable, Sendable {
        case open
        /// We sent Close at this time and wait for the peer's (RFC 6455 §7.1.2).
        case closing(since: UInt64)
        case closed
    }

    public internal(set) var state: State = .open
    /// The code we sent or received when the connection left `open`, for logs and metrics.
    public internal(set) var closeCode: WebSocketCloseCode?

    let configuration: WebSocketConfiguration
    let pingInterval: UInt64
    let idleTimeout: UInt64
    let closeTimeout: UInt64
    private var decoder: WebSocketFrameDecoder
    private var assembler: WebSocketMessageAssembler
    private var encoder: WebSocketFrameEncoder
    /// Last time any byte arrived (RFC 6455 §5.5.2 keepalive; docs/protocol.md "Transport" idle timeout).
    var lastReceived: UInt64
    /// Last time we sent a keepalive Ping.
    var lastPingSent: UInt64

    /// - Parameter now: monotonic nanoseconds at the moment the upgrade completed.
    public init(configuration: WebSocketConfiguration = WebSocketConfiguration(), now: UInt64) {
        self.configuration = configuration
        pingInterval = configuration.pingInterval.clampedNanoseconds
        idleTimeout = configuration.idleTimeout.clampedNanoseconds
        closeTimeout = configuration.closeTimeout.clampedNanoseconds
        decoder = WebSocketFrameDecoder(allowsCompression: configuration.deflate != nil)
        assembler = WebSocketMessageAssembler(
            maxMessageBytes: configuration.maxMessageBytes,
            maxCompressedMessageBytes: configuration.maxCompressedMessageBytes,
            deflate: configuration.deflate)
        encoder = WebSocketFrameEncoder(deflate: configuration.deflate)
        lastReceived = now
        lastPingSent = now
    }

    // MARK: - Receiving

    /// Feeds bytes read from the socket. Any bytes count as activity.
    public mutating func receive(_ bytes: some Collection<UInt8>, now: UInt64) -> [WebSocketAction] {
        guard state != .closed, !bytes.isEmpty else { return [] }
        lastReceived = max(lastReceived, now)
        var actions: [WebSocketAction] = []
        let handled: Void? = bytes.withContiguousStorageIfAvailable { process($0, into: &actions) }
        if handled == nil {
            Array(bytes).withUnsafeBufferPointer { process($0, into: &actions) }
        }
        return actions
    }

    private mutating func process(_ input: UnsafeBufferPointer<UInt8>, into actions: inout [WebSocketAction]) {
        var index = 0
        do throws(WebSocketError) {
            while state != .closed {
                guard let frame = try decoder.decode(input, from: &index, budget: assembler.budget) else {
                    try inspectPartialFrame()
                    return
                }
                try handle(frame, into: &actions)
            }
        } catch {
            fail(with: error, into: &actions)
        }
    }

    /// Fails fast on what is already visible of a frame in flight: a binary message we will
    /// refuse, or invalid UTF-8 in text.
    private mutating func inspectPartialFrame() throws(WebSocketError) {
        guard let header = decoder.partialHeader else { return }
        try refuseBinaryIfNeeded(header.opcode)
        if let (header, payload) = decoder.partialFrame {
            try assembler.inspectPartialFrame(header, payload: payload)
        }
    }

    private func refuseBinaryIfNeeded(_ opcode: WebSocketOpcode) throws(WebSocketError) {
        guard !configuration.acceptsBinaryMessages else { return }
        if opcode == .binary || (opcode == .continuation && assembler.isAssemblingBinary) {
            throw .unsupportedData  // docs/protocol.md "Transport": binary data frames close with 1003
        }
    }

    private mutating func handle(_ frame: WebSocketFrame, into actions: inout [WebSocketAction]) throws(WebSocketError) {
        try refuseBinaryIfNeeded(frame.opcode)
        guard let event = try assembler.append(frame) else { return }
        switch event {
        case .text(let text):
            // Data arriving after we sent Close is discarded (RFC 6455 §7.1.2 leaves it to us).
            if state == .open { actions.append(.deliverText(text)) }
        case .binary(let bytes):
            if state == .open { actions.append(.deliverBinary(bytes)) }
        case .ping(let payload):
            // RFC 6455 §5.5.2: answer with a Pong, unless we already sent Close (§5.5.1).
            if state == .open { actions.append(.send(WebSocketFrameEncoder.pong(payload))) }
        case .pong:
            break  // its arrival already counted as activity
        case .close(let code, _):
            receivedClose(code, into: &actions)
        }
    }

    /// RFC 6455 §5.5.1: answer a Close with a Close (echoing the code), then the server closes TCP
    /// first (§7.1.1). If we had sent ours already, the handshake is complete.
    private mutating func receivedClose(_ code: WebSocketCloseCode?, into actions: inout [WebSocketAction]) {
        if state == .open {
            let reply = code ?? .normalClosure
            actions.append(.send(WebSocketFrameEncoder.close(code: reply)))
            closeCode = reply
        }
        actions.append(.close(afterFlush: true))
        state = .closed
    }

    /// _Fail the WebSocket Connection_ (RFC 6455 §7.1.7): send Close with the error's code if we
    /// still may, then close.
    private mutating func fail(with error: WebSocketError, into actions: inout [WebSocketAction]) {
        if state == .open {
            actions.append(.send(WebSocketFrameEncoder.close(code: error.closeCode)))
            closeCode = error.closeCode
        }
        actions.append(.close(afterFlush: true))
        state = .closed
    }

    // MARK: - Sending

    /// Encodes one text message (compressed if negotiated); nil once closing or closed, since no
    /// data may follow our Close (RFC 6455 §5.5.1). The caller guarantees valid UTF-8.
    public mutating func sendText(_ utf8: consuming [UInt8]) -> [UInt8]? {
        guard state == .open else { return nil }
        return encoder.textMessage(utf8)
    }

    /// Encodes one binary message; nil once closing or closed.
    public mutating func sendBinary(_ bytes: [UInt8]) -> [UInt8]? {
        guard state == .open else { return nil }
        return encoder.binaryMessage(bytes)
    }

    /// Starts the closing handshake (e.g. 1001 going away on shutdown, 4001 revoked): sends Close
    /// and waits up to the close timeout for the peer's reply (RFC 6455 §7.1.2).
    public mutating func initiateClose(code: WebSocketCloseCode, reason: String = "", now: UInt64) -> [WebSocketAction] {
        guard state == .open else { return [] }
        state = .closing(since: now)
        closeCode = code
        return [.send(WebSocketFrameEncoder.close(code: code, reason: reason))]
    }
}
