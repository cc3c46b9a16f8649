import Foundation
import WhisperClient
import WhisperClientLinux
import WhisperProtocol
import WhisperTesting

/// One install of the client in a test: a `ClientSession` with its own home folder, talking
/// to a `TestServer` over real sockets, recording every event it reports.
final class ClientDevice {
    let mnemonic: Mnemonic
    let homePath: String
    let transport: CountingTransport
    private(set) var session: ClientSession
    private(set) var events: [ClientEvent] = []

    init(port: Int, mnemonic: Mnemonic = .generate(), homePath: String = ClientDevice.freshHome(),
         scheme: String = "http", caFile: String? = nil) throws {
        self.mnemonic = mnemonic
        self.homePath = homePath
        guard let url = ServerURL("\(scheme)://127.0.0.1:\(port)") else { throw ClientError.transport("bad port \(port)") }
        transport = CountingTransport(SocketTransport(server: url, caFile: caFile, timeoutSeconds: 5))
        session = try Self.session(mnemonic: mnemonic, homePath: homePath, transport: transport)
        session.onEvent = { [unowned self] in events.append($0) }
    }

    /// A server with the LocalStack S3 store that scripts/test starts (attachments enabled).
    static func serverWithStore() async throws -> TestServer {
        try await TestServer(["WHISPER_S3_ENDPOINT": try TestEnvironment.s3Endpoint,
                              "WHISPER_S3_BUCKET": try TestEnvironment.s3Bucket,
                              "WHISPER_S3_ACCESS_KEY": "test", "WHISPER_S3_SECRET_KEY": "test",
                              "WHISPER_S3_PATH_STYLE": "true"])
    }

    static func freshHome() -> String {
        NSTemporaryDirectory() + "whisper-client-" + UUID().uuidString.lowercased()
    }

    private static func session(mnemonic: Mnemonic, homePath: String, transport: CountingTransport) throws -> ClientSession {
        let session = try ClientSession(identity: ClientIdentity(mnemonic: mnemonic), home: ClientHome(path: homePath),
                                        transport: transport)
        session.reconnectBackoff = Backoff(baseMillis: 50, capMillis: 500)
        return session
    }

    /// A new process on the same home folder (the outbox, pins and dedupe state reloaded from disk).
    func restart() throws {
        session.disconnect()
        session = try Self.session(mnemonic: mnemonic, homePath: homePath, transport: transport)
        session.onEvent = { [unowned self] in events.append($0) }
    }

    var id: WhisperID {
        get throws {
            guard let id = session.whisperId else { throw ClientError.noIdentity }
            return id
        }
    }

    @discardableResult
    static func online(_ server: TestServer) throws -> ClientDevice {
        let device = try ClientDevice(port: server.publicPort)
        try device.session.connect()
        return device
    }

    var messages: [ReceivedMessage] {
        events.compactMap { if case .message(let message) = $0 { message } else { nil } }
    }

    var delivered: [String] {
        events.compactMap { if case .delivered(let id, _) = $0 { id } else { nil } }
    }

    /// Keeps the socket pumped for `seconds` (to see that nothing more arrives).
    func idle(seconds: Double) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline { try session.pump(timeoutMillis: 100) }
    }

    /// Pumps the socket until `done()` or `seconds` pass; throws on timeout.
    func pump(seconds: Double = 10, until done: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while !done() {
            guard Date() < deadline else { throw ClientError.transport("timed out waiting") }
            try session.pump(timeoutMillis: 100)
        }
    }
}

/// Counts connects, so a test can tell a client that stopped from one retrying in a loop, and
/// records the `messageId` of every message the server hands over (live `message_received` and
/// each entry of `pending_messages`), before the session's dedupe sees it: how many arrived
/// twice. It can also be pointed at a restarted server: a stopped `TestServer` keeps its
/// listening socket, so a new one cannot reliably take over the same port.
final class CountingTransport: ClientTransport, @unchecked Sendable {
    private let lock = NSLock()
    private var inner: SocketTransport
    private var count = 0
    private var arrived: [String] = []
    /// When set, a connection that hands over a frame of this type breaks right after it (the
    /// next receive reports a close without a Close frame), once.
    var breakAfter: String? {
        get { lock.withLock { breakType } }
        set { lock.withLock { breakType = newValue } }
    }
    private var breakType: String?
    /// When set, a frame of this type is lost with its connection (the receive reports a close
    /// without a Close frame instead of it), once: a reply the server sent just before it died.
    var loseNext: String? {
        get { lock.withLock { loseType } }
        set { lock.withLock { loseType = newValue } }
    }
    private var loseType: String?

    init(_ inner: SocketTransport) { self.inner = inner }

    var connects: Int { lock.withLock { count } }
    /// Every message as it came off the socket, duplicates included.
    var arrivals: [String] { lock.withLock { arrived } }

    /// What becomes of a received frame: handed over, handed over with the connection
    /// breaking after it (`breakAfter`), or lost with the connection (`loseNext`).
    fileprivate enum Fate { case pass, breakAfter, lose }

    /// Records the messages in `text` (unless it is lost) and decides its fate.
    fileprivate func tap(_ text: [UInt8]) -> Fate {
        guard let frame = try? JSONParser.parse(text) else { return .pass }
        let type = frame["type"]?.stringValue
        let fate: Fate = lock.withLock {
            if let lost = loseType, type == lost {
                loseType = nil
                return .lose
            }
            guard let broken = breakType, type == broken else { return .pass }
            breakType = nil
            return .breakAfter
        }
        if fate != .lose { record(frame) }
        return fate
    }

    private func record(_ frame: JSONValue) {
        let payload = frame["payload"]
        let messages: [JSONValue] = switch frame["type"]?.stringValue {
        case "message_received"?: payload.map { [$0] } ?? []
        case "pending_messages"?: payload?["messages"]?.arrayValue ?? []
        default: []
        }
        let ids = messages.compactMap { $0["messageId"]?.stringValue?.lowercased() }
        if !ids.isEmpty { lock.withLock { arrived += ids } }
    }

    var httpBase: String { lock.withLock { inner.httpBase } }

    func retarget(port: Int) throws {
        guard let url = ServerURL("http://127.0.0.1:\(port)") else { throw ClientError.transport("bad port \(port)") }
        lock.withLock { inner = SocketTransport(server: url, timeoutSeconds: 5) }
    }

    func connect() throws(TransportError) -> any ClientConnection {
        let transport = lock.withLock {
            count += 1
            return inner
        }
        return TappedConnection(try transport.connect(), tap: self)
    }

    func http(_ request: HTTPRequest) throws(TransportError) -> HTTPResponse { try lock.withLock { inner }.http(request) }
}

/// A connection whose received text goes past `CountingTransport.tap` first.
private final class TappedConnection: ClientConnection {
    let inner: any ClientConnection
    let transport: CountingTransport

    init(_ inner: any ClientConnection, tap transport: CountingTransport) { (self.inner, self.transport) = (inner, transport) }

    func send(_ text: [UInt8]) throws(TransportError) { try inner.send(text) }

    private var broken = false

    func receive(timeoutMillis: Int) throws(TransportError) -> TransportEvent {
        if broken {
            inner.close()
            return .closed(code: nil, reason: [])
        }
        let event = try inner.receive(timeoutMillis: timeoutMillis)
        guard case .text(let bytes) = event else { return event }
        switch transport.tap(bytes) {
        case .pass: break
        case .breakAfter: broken = true
        case .lose:
            inner.close()
            return .closed(code: nil, reason: [])
        }
        return event
    }

    func close() { inner.close() }
}
