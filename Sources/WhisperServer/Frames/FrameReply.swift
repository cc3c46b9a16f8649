import WhisperProtocol
import WhisperServices

/// Answers one inbound frame on its socket: the reply type or an `error`, both echoing the
/// frame's `requestId` (docs/protocol.md "Frames"). Failures are counted in `whisper_errors_total{code}`;
/// internal errors are logged with a correlation id that the client also sees.
struct FrameReply {
    let frame: InboundFrame
    /// The socket the frame arrived on, which the reply goes to.
    let socket: WebSocketDriver

    init(frame: InboundFrame, socket: WebSocketDriver) {
        self.frame = frame
        self.socket = socket
    }

    /// The server's limits, for payload validation.
    var limits: Limits { socket.context.shared.limits }

    func send(_ type: String, payload: (inout JSONWriter) -> Void) {
        socket.send(OutboundFrame.encode(type: type, requestId: frame.requestId, payload: payload))
    }

    func fail(_ error: ServiceError) {
        let shared = socket.context.shared
        let message = shared.report(error, connId: socket.connection.id, whisperId: socket.authenticated?.whisperId.string,
                                    frame: frame.type)
        socket.send(OutboundFrame.errorFrame(code: error.code, message: message, requestId: frame.requestId,
                                              retryAfterMs: error.retryAfterMs))
    }

    /// Runs a payload validation; on failure answers `INVALID_PAYLOAD` and returns `nil`.
    func validate<T>(_ body: () throws(PayloadError) -> T) -> T? {
        do throws(PayloadError) {
            return try body()
        } catch {
            fail(.invalidPayload(error))
            return nil
        }
    }

    /// Runs `body` bracketed as an in-flight request (SIGTERM drain waits for it); `body`
    /// must call the `done` it is given exactly once, on the loop.
    func async(_ body: (_ done: @escaping () -> Void) -> Void) {
        let socket = socket
        socket.beginRequest()
        body { socket.endRequest() }
    }
}
