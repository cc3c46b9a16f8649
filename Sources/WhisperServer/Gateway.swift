import WhisperProtocol

/// The frame layer: parses the `{type, requestId?, payload}` envelope and dispatches by
/// type through one table. Every reply to a frame that carried a `requestId` echoes it.
/// Errors never close the socket.
final class Gateway: Sendable {
    typealias Handler = @Sendable (InboundFrame, WebSocketSession) -> Void

    private let handlers: [String: Handler]
    private let echo: Bool
    private let metrics: ServerMetrics

    /// `echo` is the TEST-ONLY mode (`WHISPER_TEST_ECHO`) in which text messages are sent
    /// back verbatim so the Autobahn suite can exercise the WebSocket layer.
    init(echo: Bool, metrics: ServerMetrics) {
        self.echo = echo
        self.metrics = metrics
        self.handlers = [
            "ping": Gateway.ping,
        ]
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
        guard let handler = handlers[frame.type] else {
            reject(session, .invalidPayload, "unknown frame type", requestId: frame.requestId)
            return
        }
        handler(frame, session)
    }

    private func reject(_ session: WebSocketSession, _ code: ErrorCode, _ message: String, requestId: String?) {
        metrics.error(code)
        session.send(OutboundFrame.errorFrame(code: code, message: message, requestId: requestId))
    }

    // MARK: Handlers

    /// `ping {}` → `pong {serverTime}`; allowed before login.
    private static let ping: Handler = { frame, session in
        session.send(OutboundFrame.encode(type: "pong", requestId: frame.requestId) { payload in
            payload.member("serverTime", Clock.epochMillis())
        })
    }
}
