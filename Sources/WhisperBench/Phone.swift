import WhisperProtocol
import WhisperRuntime

/// One simulated phone: a `BenchClient`, an identity, and the login flow of docs/protocol.md —
/// `register_begin` → `register_challenge` → `register_proof` → `register_ack` on one
/// connection, as the app does. A new identity omits `whisperId` (the server mints one); a
/// recovery login sends it.
///
/// After `register_ack` every frame goes to the owner; the login's outcome goes to the
/// completion given to `logIn`. Loop thread only.
final class Phone: BenchClientDelegate {
    typealias LoginCompletion = (Result<Void, LoginFailure>) -> Void

    /// The scenario's own numbering (e.g. the pair this phone belongs to).
    let index: Int
    private(set) var identity: BenchIdentity
    private(set) var whisperId: String?
    private(set) var token: String?
    weak var owner: PhoneOwner?
    private(set) var client: BenchClient?
    private var loginCompletion: LoginCompletion?
    private var loggedIn = false

    init(index: Int, identity: BenchIdentity, whisperId: String? = nil) {
        self.index = index
        self.identity = identity
        self.whisperId = whisperId
    }

    /// Counts as logged in once the WebSocket is open, without a login (`ping --anonymous`,
    /// against a peer server that knows only ping).
    var connectsOnly = false
    var isOpen: Bool { client?.isOpen ?? false }
    /// True once the connection is gone (or was never made).
    var hasEnded: Bool { client?.hasEnded ?? true }
    var pingsAnswered: Int { client?.pingsAnswered ?? 0 }

    /// Connects on `context`'s loop and logs in; a recovery login when the phone already has a
    /// whisperId. `identity` replaces the current one (a recovery login on a new device).
    func logIn(context: ShardContext, identity: BenchIdentity? = nil, completion: @escaping LoginCompletion) {
        if let identity { self.identity = identity }
        loggedIn = false
        token = nil
        loginCompletion = completion
        let client = BenchClient(loop: context.loop, settings: context.settings, seed: context.random.next())
        client.delegate = self
        self.client = client
        client.start(from: context.nextSourceAddress())
    }

    /// Sends one frame's JSON text; false when the phone is not connected.
    @discardableResult
    func send(_ text: [UInt8]) -> Bool {
        client?.send(text) ?? false
    }

    /// Closes the connection with a Close handshake.
    func close() {
        client?.close()
    }

    // MARK: BenchClientDelegate

    func clientDidOpen(_ client: BenchClient) {
        guard !connectsOnly else {
            loggedIn = true
            let completion = loginCompletion
            loginCompletion = nil
            return completion?(.success(())) ?? ()
        }
        client.send(ClientFrames.registerBegin(requestId: "b", identity: identity, whisperId: whisperId))
    }

    func client(_ client: BenchClient, didReceiveText text: [UInt8]) {
        let parsed = ServerFrame(parsing: text)
        if loggedIn {
            owner?.phone(self, didReceive: parsed ?? .unreadable)
            return
        }
        guard let frame = parsed else { return failLogin(.badFrame) }
        switch frame.type {
        case "register_challenge":
            guard let challengeId = frame.string("challengeId"),
                  let challenge = frame.string("challenge").flatMap({ Base64.decode($0) }) else {
                return failLogin(.badFrame)
            }
            client.send(ClientFrames.registerProof(requestId: "p", identity: identity, challengeId: challengeId,
                                                   challenge: challenge, whisperId: whisperId))
        case "register_ack":
            guard let id = frame.string("whisperId"), let token = frame.string("sessionToken") else {
                return failLogin(.badFrame)
            }
            whisperId = id
            self.token = token
            loggedIn = true
            let completion = loginCompletion
            loginCompletion = nil
            completion?(.success(()))
        case "error":
            failLogin(.refused(frame.errorCode ?? "UNKNOWN"))
        default:
            break  // nothing else is expected before the ack; not ours to judge
        }
    }

    func client(_ client: BenchClient, didEnd end: ClientEnd) {
        if loggedIn {
            owner?.phone(self, didEnd: end)
        } else {
            failLogin(.transport(end))
        }
    }

    private func failLogin(_ failure: LoginFailure) {
        guard let completion = loginCompletion else { return }
        loginCompletion = nil
        // A refused login leaves its socket open; one that ended already makes this a no-op.
        client?.close()
        completion(.failure(failure))
    }
}
