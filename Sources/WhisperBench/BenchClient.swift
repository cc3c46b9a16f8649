import WhisperWebSocket
import WhisperRuntime

/// One WebSocket client connection on a loop, as a phone keeps it: connect (from a chosen
/// source address), opening handshake, masked text frames out, server frames in, Pings
/// answered with Pongs (RFC 6455 §5.5.2 — the server drops a socket that stays silent), and
/// the closing handshake in either direction (§7).
///
/// ```
/// idle → connecting → handshaking → open → closing → ended
///                \____________\_________\______________↗  (failure, server close, loss)
/// ```
///
/// Loop thread only; the delegate hears `didEnd` exactly once.
final class BenchClient: ConnectionDelegate {
    private enum State {
        case idle, connecting, handshaking, open, closing, ended
    }

    let loop: EventLoop
    weak var delegate: BenchClientDelegate?
    private let settings: ClientSettings
    private var state = State.idle
    private var connection: Connection?
    private var random: FastRandom
    private var handshake: ClientHandshake?
    private var head: [UInt8] = []
    private var encoder = ClientFrameEncoder(deflate: nil)
    private var decoder: ClientFrameDecoder
    private var timer: TimerID?
    /// Server Pings answered; the idle scenario reports them.
    private(set) var pingsAnswered = 0

    init(loop: EventLoop, settings: ClientSettings, seed: UInt64) {
        self.loop = loop
        self.settings = settings
        random = FastRandom(seed: seed)
        decoder = ClientFrameDecoder(maxMessageBytes: settings.maxMessageBytes, deflate: nil)
    }

    var isOpen: Bool { state == .open }
    var hasEnded: Bool { state == .ended }

    /// Starts connecting; `local` is the source address (port 0).
    func start(from local: SocketAddress?) {
        guard state == .idle else { return }
        state = .connecting
        Connector.connect(loop: loop, to: settings.remote, from: local,
                          timeoutNanoseconds: settings.connectTimeoutNanoseconds) { [self] result in
            switch result {
            case .failure(let error):
                finish(.connectFailed(error.description))
            case .success(let connection):
                connected(connection)
            }
        }
    }

    /// Queues one text message; false when the client is not open.
    @discardableResult
    func send(_ text: [UInt8]) -> Bool {
        guard state == .open, let connection else { return false }
        return connection.write(encoder.text(text))
    }

    /// Starts the closing handshake (1000); a client not yet open is just dropped.
    func close() {
        switch state {
        case .open:
            state = .closing
            connection?.write(encoder.close(code: 1000))
            arm(settings.closeTimeoutNanoseconds) { [self] in finish(.closedByClient) }
        case .idle, .connecting, .handshaking:
            finish(.closedByClient)
        case .closing, .ended:
            break
        }
    }

    // MARK: Handshake

    private func connected(_ connection: Connection) {
        guard state == .connecting else { return connection.close() }
        self.connection = connection
        connection.delegate = self
        let keyBytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &random) }
        let handshake = ClientHandshake(host: settings.hostHeader, path: settings.path,
                                        offerDeflate: settings.offerDeflate, keyBytes: keyBytes)
        self.handshake = handshake
        state = .handshaking
        connection.write(handshake.request)
        arm(settings.connectTimeoutNanoseconds) { [self] in finish(.lost("handshake timed out")) }
    }

    private func readHandshake(_ bytes: UnsafeRawBufferPointer) {
        head.append(contentsOf: bytes)
        guard let end = ClientHandshake.headEnd(in: head) else {
            if head.count > ClientHandshake.maxHeadBytes { finish(.handshakeFailed(.headTooLarge)) }
            return
        }
        guard let handshake else { return finish(.lost("no handshake")) }
        switch handshake.validate(head: head[..<end]) {
        case .failure(let error):
            finish(.handshakeFailed(error))
        case .success(let deflate):
            disarm()
            encoder = ClientFrameEncoder(deflate: deflate?.outgoing, random: FastRandom(seed: random.next()))
            decoder = ClientFrameDecoder(maxMessageBytes: settings.maxMessageBytes, deflate: deflate?.incoming)
            let rest = Array(head[end...])
            head = []
            self.handshake = nil
            state = .open
            delegate?.clientDidOpen(self)
            if !rest.isEmpty { rest.withUnsafeBytes { readFrames($0) } }
        }
    }

    // MARK: Frames

    private func readFrames(_ bytes: UnsafeRawBufferPointer) {
        // Events are handled after decoding, so a delegate reacting to one never re-enters
        // the decoder while it is mid-buffer.
        var events: [ServerFrameEvent] = []
        var failure: ClientFrameError?
        do {
            try decoder.feed(bytes) { events.append($0) }
        } catch {
            failure = error
        }
        for event in events { handle(event) }
        if let failure, state == .open || state == .closing {
            // RFC 6455 §7.1.7: fail the connection (1002) on what we cannot accept.
            connection?.write(encoder.close(code: 1002))
            finish(.lost(failure.description))
        }
    }

    private func handle(_ event: ServerFrameEvent) {
        guard state == .open || state == .closing else { return }
        switch event {
        case .text(let text):
            delegate?.client(self, didReceiveText: text)
        case .ping(let payload):
            pingsAnswered += 1
            connection?.write(encoder.pong(payload))
        case .pong:
            break
        case .close(let code, _):
            if state == .closing { return finish(.closedByClient) }
            // §5.5.1: answer with a Close (echoing the code), then let the server close TCP.
            connection?.write(encoder.close(code: code ?? 1000))
            connection?.closeWhenFlushed()
            finish(.closedByServer(code: code))
        }
    }

    // MARK: ConnectionDelegate

    func connection(_ connection: Connection, didRead bytes: UnsafeRawBufferPointer) {
        switch state {
        case .handshaking: readHandshake(bytes)
        case .open, .closing: readFrames(bytes)
        case .idle, .connecting, .ended: break
        }
    }

    func connectionDidClose(_ connection: Connection, reason: CloseReason) {
        guard state != .ended else { return }
        if state == .closing { return finish(.closedByClient) }
        switch reason {
        case .peerClosed: finish(.lost("closed without a Close frame"))
        case .slowConsumer: finish(.lost("output buffer overflow"))
        case .closedByServer, .proxyHeader: finish(.lost("closed locally"))  // no PROXY header on a client connection
        case .error(let text): finish(.lost(text))
        }
    }

    // MARK: Ending

    /// Ends the client: drops the socket (unless a close is already flushing) and tells the
    /// delegate once.
    private func finish(_ end: ClientEnd) {
        guard state != .ended else { return }
        state = .ended
        disarm()
        if let connection, !connection.isClosed {
            if case .closedByServer = end {
                // Our Close echo is queued; `closeWhenFlushed` already owns the socket.
            } else {
                connection.close()
            }
        }
        connection?.delegate = nil
        connection = nil
        // A connect still in flight reports later; `connected` then drops it (state is ended).
        delegate?.client(self, didEnd: end)
    }

    private func arm(_ nanoseconds: UInt64, _ action: @escaping () -> Void) {
        disarm()
        timer = loop.schedule(afterNanoseconds: nanoseconds) { [weak self] in
            self?.timer = nil
            action()
        }
    }

    private func disarm() {
        if let timer { loop.cancel(timer) }
        timer = nil
    }
}
