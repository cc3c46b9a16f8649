import Foundation
import WhisperProtocol

/// One identity talking to the relay: login (register, login and recovery are the same
/// challenge-response, docs/protocol.md "Login"), the persisted outbox, receiving with dedupe
/// and receipts, key pinning, and reconnecting. Blocking and single-threaded: every method runs
/// on the caller's thread (an app gives it a thread of its own) and the session is not shared
/// between threads.
///
/// On every (re)connect: open → `register_begin`/`register_proof` → kept events → receipts
/// whose answers were lost → every page of `fetch_pending` → the due outbox. Pushes that
/// arrive while a request waits for its reply are queued and applied afterwards, in arrival
/// order.
public final class ClientSession {
    public static let platform = "ios"
    /// A reply later than this counts as a lost connection.
    public static let replyTimeoutMillis = 15_000
    static let pageLimit = 50
    static let refreshMarginMillis: Int64 = 86_400_000
    static let inboxFile = "inbox.jsonl"

    public let identity: ClientIdentity
    public let home: ClientHome
    let transport: any ClientTransport
    public internal(set) var account: AccountState
    public internal(set) var outbox: Outbox
    var pinned: PinnedKeys
    var seen: SeenMessages
    var owedReceipts: OwedReceipts
    var connection: (any ClientConnection)?
    var pushes: [JSONValue] = []
    var requestCounter = 0
    /// Frames sent without waiting, because only a refusal answers them (`typing`, call
    /// signals): request id and frame type, the most recent `unansweredKept`.
    var unanswered: [(requestId: String, type: String)] = []
    /// The `callId`s (lower case) of the offers reported lately: a repeat is not reported again.
    var offersSeen: [String] = []
    /// When the session is refreshed (`refreshSessionIfDue`).
    var refreshAt: Int64?
    /// Receives every event; set before connecting.
    public var onEvent: (ClientEvent) -> Void = { _ in }
    /// Unix milliseconds; replaceable in tests.
    public var clock: () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) }
    public var reconnectBackoff = Backoff()

    public init(identity: ClientIdentity, home: ClientHome, transport: any ClientTransport) throws(ClientError) {
        self.identity = identity
        self.home = home
        self.transport = transport
        account = try AccountState.load(from: home)
        outbox = try Outbox.load(from: home)
        pinned = try PinnedKeys.load(from: home)
        seen = try SeenMessages.load(from: home)
        owedReceipts = try OwedReceipts.load(from: home)
        if !home.exists(AccountState.fileName) { try account.save(in: home) }
    }

    public var whisperId: WhisperID? { account.whisperId }
    public var isConnected: Bool { connection != nil }

    // MARK: Connecting

    /// Opens a socket, logs in, applies kept events, drains `fetch_pending`, flushes the outbox.
    public func connect() throws(ClientError) {
        disconnect()
        do {
            connection = try transport.connect()
        } catch {
            throw .transport(error.description)
        }
        do throws(ClientError) {
            try login()
            guard let whisperId = account.whisperId else { throw ClientError.protocolViolation("no whisperId") }
            onEvent(.connected(whisperId))
            try applyPushes()
            try sendOwedReceipts()
            try fetchPending()
            try flushOutbox()
        } catch {
            disconnect()
            throw error
        }
    }

    /// Closes the socket (1000); the session token stays valid for the next connect.
    ///
    /// Pushes read but not yet applied are kept, and applied first after the next login: the
    /// server writes a `message_delivered` (or a `group_event`, a `call_end`) once, so one read
    /// while a request waited for its reply on a connection that then broke exists nowhere else.
    public func disconnect() {
        connection?.close()
        connection = nil
        unanswered.removeAll()
        for entry in outbox.entries where entry.state == .sending { outbox.requeue(entry.key) }
    }

    /// `logout`: the token dies on the server and is forgotten here.
    public func logout() throws(ClientError) {
        if let token = account.sessionToken, connection != nil {
            _ = try expect("logged_out", request { ClientFrames.bare("logout", requestId: $0, token: token) })
        }
        account.sessionToken = nil
        account.sessionExpiresAt = nil
        try account.save(in: home)
        disconnect()
    }

    /// `delete_account`: the identity leaves the relay for good (docs/protocol.md
    /// "delete_account"), signed over `"v1\ndelete_account\n" whisperId "\n" timestamp "\n"`
    /// (SHA-256, then Ed25519). The server answers, then closes with 4004; local state stays.
    public func deleteAccount() throws(ClientError) {
        guard let token = account.sessionToken, let me = account.whisperId else { throw .notConnected }
        let timestamp = clock()
        let signature = identity.sign(signedBytes: Array("v1\ndelete_account\n\(me.string)\n\(timestamp)\n".utf8))
        _ = try expect("account_deleted", request {
            ClientFrames.privileged("delete_account", requestId: $0, token: token) { w in
                w.member("whisperId", me.string)
                w.member("timestamp", timestamp)
                w.member("sig", Base64.encode(signature))
            }
        })
        account.sessionToken = nil
        account.sessionExpiresAt = nil
        try account.save(in: home)
        disconnect()
    }

    /// `session_refresh` once less than a day of the session is left (docs/protocol.md
    /// "Sessions"), or half of it for a server with sessions shorter than two days.
    func refreshSessionIfDue() throws(ClientError) {
        guard let token = account.sessionToken, let expiresAt = account.sessionExpiresAt else { return }
        let due = refreshAt ?? Self.refreshTime(expiresAt: expiresAt, now: clock())
        refreshAt = due
        guard clock() >= due else { return }
        let refreshed = try expect("session_refreshed", request { ClientFrames.bare("session_refresh", requestId: $0, token: token) })
        guard let newToken = refreshed["sessionToken"]?.stringValue else {
            throw .protocolViolation("session_refreshed without sessionToken")
        }
        account.sessionToken = newToken
        account.sessionExpiresAt = refreshed["sessionExpiresAt"]?.int64Value
        refreshAt = account.sessionExpiresAt.map { Self.refreshTime(expiresAt: $0, now: clock()) }
        try account.save(in: home)
    }

    static func refreshTime(expiresAt: Int64, now: Int64) -> Int64 {
        expiresAt - min(refreshMarginMillis, max(0, expiresAt - now) / 2)
    }

    /// The challenge-response login. Without a stored Whisper ID the keys alone name the
    /// identity: a new one is minted for keys never seen, a known one is recovered (contract §15).
    func login() throws(ClientError) {
        let known = account.whisperId
        let challenge = try expect("register_challenge", request {
            ClientFrames.registerBegin(requestId: $0, deviceId: account.deviceId, platform: Self.platform, whisperId: known)
        })
        guard let challengeId = challenge["challengeId"]?.stringValue,
              let bytes = challenge["challenge"]?.stringValue.flatMap(Base64.decode), bytes.count == 32
        else { throw .protocolViolation("register_challenge without a 32-byte challenge") }
        let signature = identity.signChallenge(bytes)
        let ack = try expect("register_ack", request {
            ClientFrames.registerProof(requestId: $0, challengeId: challengeId, deviceId: account.deviceId,
                                       platform: Self.platform, whisperId: known, identity: identity, signature: signature)
        })
        guard let id = ack["whisperId"]?.stringValue.flatMap(WhisperID.validate), let token = ack["sessionToken"]?.stringValue
        else { throw .protocolViolation("register_ack without whisperId or sessionToken") }
        if let known, known != id { throw .protocolViolation("register_ack for \(id), expected \(known)") }
        account.whisperId = id
        account.sessionToken = token
        account.sessionExpiresAt = ack["sessionExpiresAt"]?.int64Value
        refreshAt = account.sessionExpiresAt.map { Self.refreshTime(expiresAt: $0, now: clock()) }
        try account.save(in: home)
    }

    // MARK: Requests

    /// Sends the frame `build(requestId)` and waits for the reply with that `requestId`;
    /// pushes (and late replies to other requests) read meanwhile are queued for `applyPushes`.
    func request(_ build: (String) -> [UInt8]) throws(ClientError) -> JSONValue {
        let id = try send(build)
        let deadline = clock() + Int64(Self.replyTimeoutMillis)
        while true {
            let left = deadline - clock()
            guard left > 0 else { throw .transport("no reply within \(Self.replyTimeoutMillis) ms") }
            guard let frame = try receiveFrame(timeoutMillis: Int(left)) else { continue }
            if frame["requestId"]?.stringValue == id { return frame }
            pushes.append(frame)
        }
    }

    /// Sends the frame `build(requestId)` with the next request id; returns that id.
    func send(_ build: (String) -> [UInt8]) throws(ClientError) -> String {
        guard let connection else { throw .notConnected }
        requestCounter += 1
        let id = "c-\(requestCounter)"
        do {
            try connection.send(build(id))
        } catch {
            salvagePushes(connection)
            throw .transport(error.description)
        }
        return id
    }

    /// A write failed (the server died or reset): what it wrote before that may still be
    /// readable, and a `message_delivered` among it is written only once. Keeps those pushes.
    private func salvagePushes(_ connection: any ClientConnection) {
        while case .text(let bytes)? = try? connection.receive(timeoutMillis: 0) {
            if let frame = try? JSONParser.parse(bytes), frame["type"]?.stringValue != nil { pushes.append(frame) }
        }
    }

    /// The next frame, nil on timeout; a close becomes the matching error.
    func receiveFrame(timeoutMillis: Int) throws(ClientError) -> JSONValue? {
        guard let connection else { throw .notConnected }
        let event: TransportEvent
        do {
            event = try connection.receive(timeoutMillis: timeoutMillis)
        } catch {
            throw .transport(error.description)
        }
        switch event {
        case .timeout:
            return nil
        case .closed(let code, let reason):
            self.connection = nil
            if let code, (4001...4004).contains(code) { throw .revoked(code: code) }
            throw .closed(code: code, retryAfterMillis: code == 1001 ? Backoff.retryAfterMillis(closeReason: reason) : nil)
        case .text(let bytes):
            guard let frame = try? JSONParser.parse(bytes), frame["type"]?.stringValue != nil else {
                throw .protocolViolation("a server frame that is not a JSON frame")
            }
            return frame
        }
    }

    /// The payload of `reply` if it is a `type` frame; an `error` frame becomes `.server`.
    func expect(_ type: String, _ reply: JSONValue) throws(ClientError) -> JSONValue {
        let payload = reply["payload"] ?? .null
        switch reply["type"]?.stringValue {
        case type?:
            return payload
        case "error"?:
            throw .server(code: payload["code"]?.stringValue ?? "INTERNAL_ERROR", message: payload["message"]?.stringValue ?? "",
                          retryAfterMillis: payload["retryAfterMs"]?.int64Value)
        case let other:
            throw .protocolViolation("expected \(type), got \(other ?? "nothing")")
        }
    }
}
