import WhisperProtocol
import WhisperServices

/// The frame layer: parses the `{type, requestId?, payload}` envelope and dispatches by type
/// through ONE table (`FrameRoutes.table`). A route is either open (allowed before login:
/// `ping`, `register_begin`, `register_proof`) or privileged; for a privileged route the
/// gateway checks `protocolVersion`/`cryptoVersion` (`INVALID_PAYLOAD`) and the session
/// (`NOT_REGISTERED`) before the handler runs (docs/protocol.md, "Privileged frames"), so no
/// handler can forget to. Every reply to a frame that carried a `requestId` echoes it.
/// Errors never close the socket.
final class Gateway: Sendable {
    private let routes: [String: FrameRoute]
    private let echo: Bool
    private let limits: Limits
    private let metrics: ServerMetrics

    /// `echo` is the TEST-ONLY mode (`WHISPER_TEST_ECHO`) in which text messages are sent
    /// back verbatim so the Autobahn suite can exercise the WebSocket layer.
    init(echo: Bool, limits: Limits, metrics: ServerMetrics) {
        self.echo = echo
        self.limits = limits
        self.metrics = metrics
        self.routes = FrameRoutes.table
    }

    func handle(_ message: [UInt8], from socket: WebSocketDriver) {
        if echo {
            socket.send(message)
            return
        }
        let frame: InboundFrame
        do {
            frame = try InboundFrame.parse(message, limits: limits)
        } catch {
            reject(socket, .invalidPayload, error.message, requestId: error.requestId)
            return
        }
        switch routes[frame.type] {
        case nil:
            reject(socket, .invalidPayload, "unknown frame type", requestId: frame.requestId)
        case .open(let handler)?:
            handler(frame, FrameReply(frame: frame, socket: socket))
        case .privileged(let handler)?:
            let reply = FrameReply(frame: frame, socket: socket)
            SessionGate.authorize(frame, reply) { handler(frame, reply, $0) }
        }
    }

    private func reject(_ socket: WebSocketDriver, _ code: ErrorCode, _ message: String, requestId: String?) {
        metrics.error(code)
        socket.send(OutboundFrame.errorFrame(code: code, message: message, requestId: requestId))
    }
}
