import WhisperProtocol
import WhisperServices

/// Frame handlers of calls (docs/protocol.md "Calls"): payload validation (`INVALID_PAYLOAD`
/// before any I/O), the service call, the reply frames.
enum CallFrames {
    /// `get_turn_credentials {}` → `turn_credentials {urls, username, credential, ttl}`.
    static let getTurnCredentials: FrameRoute.PrivilegedHandler = { frame, reply, session in
        guard reply.validate({ () throws(PayloadError) in try PrivilegedPayload.requireOnlyCommonKeys(frame.payload) }) != nil
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
