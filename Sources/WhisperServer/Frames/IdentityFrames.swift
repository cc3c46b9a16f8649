import WhisperOps
import WhisperProtocol
import WhisperServices

/// Frame handlers of identity and sessions (docs/protocol.md "Identity and sessions"): payload validation
/// (`INVALID_PAYLOAD` before any I/O), the `AuthService` call, and the reply frames.
enum IdentityFrames {
    /// `register_begin` → `register_challenge {challengeId, challenge, expiresAt}`.
    static let registerBegin: FrameRoute.OpenHandler = { frame, reply in
        guard let request = reply.validate({ () throws(PayloadError) in try RegisterBeginPayload(parsing: frame.payload) })
        else { return }
        let socket = reply.socket
        reply.async { done in
            socket.context.auth.begin(request, client: socket.client) { result in
                defer { done() }
                switch result {
                case .success(let challenge):
                    reply.send("register_challenge") { payload in
                        payload.member("challengeId", challenge.id.string)
                        payload.member("challenge", Base64.encode(challenge.challenge))
                        payload.member("expiresAt", challenge.expiresAtMillis)
                    }
                case .failure(let error):
                    reply.fail(error)
                }
            }
        }
    }

    /// `register_proof` → `register_ack {success, whisperId, sessionToken, sessionExpiresAt,
    /// serverTime}`; this socket now holds the new session, every other one of the identity
    /// is revoked (on every node).
    static let registerProof: FrameRoute.OpenHandler = { frame, reply in
        guard let request = reply.validate({ () throws(PayloadError) in try RegisterProofPayload(parsing: frame.payload, limits: reply.limits) })
        else { return }
        let socket = reply.socket
        reply.async { done in
            socket.context.auth.prove(request, client: socket.client) { result in
                switch result {
                case .success(let login):
                    // Before the ack, the Redis copy of the user's block list is rewritten from
                    // PostgreSQL (docs/protocol.md "Blocking"): the list holds from the ack on.
                    socket.context.restoreBlocks(of: login.session.record.whisperId, connId: socket.connection.id) {
                        let joined = socket.context.registry.bind(socket, to: login.session.record)
                        let ack = {
                            reply.send("register_ack") { payload in
                                payload.member("success", true)
                                payload.member("whisperId", login.session.record.whisperId.string)
                                payload.member("sessionToken", login.session.token.text)
                                payload.member("sessionExpiresAt", login.session.record.expiresAtMillis)
                                payload.member("serverTime", WallTime.now().epochMillis)
                            }
                        }
                        guard joined != .refused else {
                            ack()
                            return done()
                        }
                        // The route moves here before the ack, so what anyone sends the user once
                        // it has the ack — from any node — comes live to this socket; the events
                        // kept while it was offline follow the ack. A later login's revocation,
                        // or a frame routed here, that comes meanwhile waits for the ack
                        // (`WebSocketDriver.ackPending`).
                        socket.ackPending = true
                        socket.context.cameOnline(socket, as: login.session.record.whisperId, beforeKept: {
                            socket.ackPending = false
                            ack()
                            if let revoked = socket.revocationAfterAck {
                                socket.revocationAfterAck = nil
                                socket.revoke(reason: revoked.reason, code: revoked.code)
                            }
                        }) { done() }
                    }
                case .failure(let error):
                    done()
                    reply.fail(error)
                }
            }
        }
    }

    /// `session_refresh` → `session_refreshed {sessionToken, sessionExpiresAt}`; the old
    /// token is dead from this moment, and this socket holds the new one.
    static let sessionRefresh: FrameRoute.PrivilegedHandler = { frame, reply, session in
        guard reply.validate({ () throws(PayloadError) in try PrivilegedPayload.requireOnlyCommonKeys(frame.fields) }) != nil
        else { return }
        let socket = reply.socket
        reply.async { done in
            socket.context.auth.refresh(session, client: socket.client) { result in
                defer { done() }
                switch result {
                case .success(let issued):
                    socket.context.registry.bind(socket, to: issued.record)
                    reply.send("session_refreshed") { payload in
                        payload.member("sessionToken", issued.token.text)
                        payload.member("sessionExpiresAt", issued.record.expiresAtMillis)
                    }
                case .failure(let error):
                    if socket.authenticated?.hash == session.hash { socket.context.registry.unbind(socket) }
                    reply.fail(error)
                }
            }
        }
    }

    /// `logout` → `logged_out {}`; the token is dead, the socket stays open unauthenticated.
    static let logout: FrameRoute.PrivilegedHandler = { frame, reply, session in
        guard reply.validate({ () throws(PayloadError) in try PrivilegedPayload.requireOnlyCommonKeys(frame.fields) }) != nil
        else { return }
        let socket = reply.socket
        if socket.authenticated?.hash == session.hash { socket.context.registry.unbind(socket) }
        reply.async { done in
            socket.context.auth.logout(session, client: socket.client) { result in
                defer { done() }
                switch result {
                case .success: reply.send("logged_out") { _ in }
                case .failure(let error): reply.fail(error)
                }
            }
        }
    }

    /// `update_tokens {pushToken?, voipToken?, platform}` → `tokens_updated {}`; the device
    /// of this session gets them (absent tokens are kept).
    static let updateTokens: FrameRoute.PrivilegedHandler = { frame, reply, session in
        guard let request = reply.validate({ () throws(PayloadError) in
            try UpdateTokensPayload(parsing: frame.payload, limits: reply.limits)
        }) else { return }
        let socket = reply.socket
        reply.async { done in
            socket.context.auth.updateTokens(request, session: session, client: socket.client) { result in
                defer { done() }
                switch result {
                case .success: reply.send("tokens_updated") { _ in }
                case .failure(let error): reply.fail(error)
                }
            }
        }
    }
}
