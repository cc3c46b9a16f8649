import WhisperProtocol
import WhisperServices

/// Frame handlers of calls (docs/protocol.md "Calls"): payload validation (`INVALID_PAYLOAD`
/// before any I/O), the service call, the reply frames.
enum CallFrames {
    /// `call_initiate`, `call_answer`, `call_ice_candidate`, `call_end`: forwarded to `to` under
    /// the same type; no reply on success, except `call_ringing {callId}` to the caller of an
    /// offer that reached the callee's socket at once.
    static func signal(_ kind: CallSignalKind) -> FrameRoute.PrivilegedHandler {
        { frame, reply, session in
            guard let signal = reply.validate({ () throws(PayloadError) in
                try CallSignalPayload(parsing: frame, kind: kind, limits: reply.limits)
            }) else { return }
            let socket = reply.socket
            reply.async { done in
                socket.context.calls.signal(signal, session: session, client: socket.client) { result in
                    defer { done() }
                    switch result {
                    case .success(.ringing): socket.send(CallEventFrames.ringing(callIdText: signal.callIdText))
                    case .success(.done): break
                    case .failure(let error): reply.fail(error)
                    }
                }
            }
        }
    }

    /// `get_turn_credentials {}` → `turn_credentials {urls, username, credential, ttl}`.
    static let getTurnCredentials: FrameRoute.PrivilegedHandler = { frame, reply, session in
        guard reply.validate({ () throws(PayloadError) in try PrivilegedPayload.requireOnlyCommonKeys(frame.fields) }) != nil
        else { return }
        let socket = reply.socket
        reply.async { done in
            socket.context.turn.issue(for: session, client: socket.client) { result in
                defer { done() }
                switch result {
                case .success(let credentials):
                    reply.send("turn_credentials") { payload in
                        payload.member("urls", strings: credentials.urls)
                        payload.member("username", credentials.username)
                        payload.member("credential", credentials.credential)
                        payload.member("ttl", Int64(credentials.ttlSeconds))
                    }
                case .failure(let error):
                    reply.fail(error)
                }
            }
        }
    }
}
