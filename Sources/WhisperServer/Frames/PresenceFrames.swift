import WhisperProtocol
import WhisperServices

/// Frame handlers of presence and typing (docs/protocol.md "Typing"): payload validation
/// (`INVALID_PAYLOAD` before any I/O), the service call; typing has no success reply.
enum PresenceFrames {
    /// `typing {to, isTyping}` → `typing {from, isTyping}` to `to` if it is an online direct
    /// peer; nothing back to the sender unless an error (a drop is silent).
    static let typing: FrameRoute.PrivilegedHandler = { frame, reply, session in
        guard let signal = reply.validate({ () throws(PayloadError) in try TypingPayload(parsing: frame.fields) })
        else { return }
        let socket = reply.socket
        reply.async { done in
            socket.context.typing.typing(signal, session: session, client: socket.client) { result in
                defer { done() }
                if case .failure(let error) = result { reply.fail(error) }
            }
        }
    }
}
