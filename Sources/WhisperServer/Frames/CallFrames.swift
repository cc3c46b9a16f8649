import WhisperProtocol
import WhisperServices

/// Frame handlers of calls (docs/protocol.md "Calls"): payload validation (`INVALID_PAYLOAD`
/// before any I/O), the service call, the reply frames.
enum CallFrames {
    /// `call_initiate`, `call_answer`, `call_ice_candidate`, `call_end`: forwarded to `to` under
    /// the same type; no reply on success (the caller hears `call_ringing` when the callee
    /// sends `call_received`).
    static func signal(_ kind: CallSignalKind) -> FrameRoute.PrivilegedHandler {
        { frame, reply, session in
            guard let signal = reply.validate({ () throws(PayloadError) in
                try CallSignalPayload(parsing: frame, kind: kind, limits: reply.limits)
            }) else { return }
            let socket = reply.socket
            reply.async { done in
                socket.context.calls.signal(signal, session: session, client: socket.client) { result in
                    defer { done() }
                    if case .failure(let error) = result { reply.fail(error) }
                }
            }
        }
    }

    /// `call_received {callId}` (the callee, unsigned) → `call_confirmed {callId}`, to the
    /// first confirmation and to a repeat alike; the first one of a ringing call sends the
    /// caller `call_ringing`.
    static let received: FrameRoute.PrivilegedHandler = { frame, reply, session in
        guard let received = reply.validate({ () throws(PayloadError) in try CallReceivedPayload(parsing: frame.fields) })
        else { return }
        let socket = reply.socket
        reply.async { done in
            socket.context.calls.confirm(received.callId, session: session, client: socket.client) { result in
                defer { done() }
                switch result {
                case .success:
                    reply.send(CallReceivedPayload.confirmedType) { payload in payload.member("callId", received.callIdText) }
                case .failure(let error):
                    reply.fail(error)
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
