import WhisperProtocol
import WhisperServices

/// The frame layer: parses the `{type, requestId?, payload}` envelope and dispatches by type
/// through ONE table (`FrameRoutes.table`). A route is either open (allowed before login:
/// `ping`, `register_begin`, `register_proof`) or privileged; for a privileged route the
/// gateway checks `protocolVersion`/`cryptoVersion` (`INVALID_PAYLOAD`) and the session
/// (`NOT_REGISTERED`) before the handler runs (contract §3), so no handler can forget to.
/// Every reply to a frame that carried a `requestId` echoes it. Errors never close the socket.
final class Gateway: Sendable {
    private let routes: [String: FrameRoute]
    private let echo: Bool
    private let metrics: ServerMetrics

    /// `echo` is the TEST-ONLY mode (`WHISPER_TEST_ECHO`) in which text messages are sent
    /// back verbatim so the Autobahn suite can exercise the WebSocket layer.
    init(echo: Bool, metrics: ServerMetrics) {
        self.echo = echo
        self.metrics = metrics
        self.routes = FrameRoutes.table
    }

    func handle(_ message: [UInt8], from session: WebSocketSession) {
        if echo {
            session.send(message)
            return
        }
        let frame: InboundFrame
        do {
            frame = try InboundFrame.parse(message)
        } catch {
            reject(session, .invalidPayload, error.message, requestId: error.requestId)
            return
        }
        switch routes[frame.type] {
        case nil:
            reject(session, .invalidPayload, "unknown frame type", requestId: frame.requestId)
        case .open(let handler)?:
            handler(frame, FrameReply(frame: frame, session: session))
        case .privileged(let handler)?:
            let reply = FrameReply(frame: frame, session: session)
            SessionGate.authorize(frame, reply) { handler(frame, reply, $0) }
        }
    }

    private func reject(_ session: WebSocketSession, _ code: ErrorCode, _ message: String, requestId: String?) {
        metrics.error(code)
        session.send(OutboundFrame.errorFrame(code: code, message: message, requestId: requestId))
    }
}

/// How a frame type is handled. The access level is part of the route, so whether a frame
/// needs a session is declared in the table, not decided inside handlers.
enum FrameRoute: Sendable {
    typealias OpenHandler = @Sendable (InboundFrame, FrameReply) -> Void
    typealias PrivilegedHandler = @Sendable (InboundFrame, FrameReply, SessionRecord) -> Void

    /// Allowed before login.
    case open(OpenHandler)
    /// Needs versions = 1 and a valid session; the handler gets the session.
    case privileged(PrivilegedHandler)
}

/// The dispatch table: every frame type the server accepts, with its access level.
enum FrameRoutes {
    static let table: [String: FrameRoute] = [
        "ping": .open(PingFrames.ping),
        RegisterBeginPayload.type: .open(IdentityFrames.registerBegin),
        RegisterProofPayload.type: .open(IdentityFrames.registerProof),
        "session_refresh": .privileged(IdentityFrames.sessionRefresh),
        "logout": .privileged(IdentityFrames.logout),
        SendMessagePayload.type: .privileged(MessagingFrames.sendMessage),
        FetchPendingPayload.type: .privileged(MessagingFrames.fetchPending),
        DeliveryReceiptPayload.type: .privileged(MessagingFrames.deliveryReceipt),
    ]
}
