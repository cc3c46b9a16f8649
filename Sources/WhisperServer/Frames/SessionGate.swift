import WhisperOps
import WhisperProtocol
import WhisperServices

/// The one session check for every privileged frame (docs/protocol.md "Frames"), run by the gateway
/// before the handler:
/// 1. `protocolVersion` and `cryptoVersion` must be the integer 1 → else `INVALID_PAYLOAD`;
/// 2. `sessionToken` absent/null, not 32 bytes of base64, unknown or expired → `NOT_REGISTERED`
///    (a non-string is a schema violation → `INVALID_PAYLOAD`);
/// 3. the hash of the token (remembered per socket for the text last presented, compared in
///    constant time, so a phone's repeated token is not hashed per frame) equal (constant time)
///    to the session cached on this socket →
///    the handler runs at once, no Redis round trip; otherwise one Redis look-up, and the
///    session found is cached on the socket (and the socket joins the routing table; if it
///    held no session of that identity before, the user comes online first: its route is
///    set and the events kept for it are sent before the handler runs).
enum SessionGate {
    static func authorize(_ frame: InboundFrame, _ reply: FrameReply, then handler: @escaping (SessionRecord) -> Void) {
        guard let presented = reply.validate({ () throws(PayloadError) -> ArraySlice<UInt8>? in
            try ProtocolVersion.check(frame.fields)
            return try PrivilegedPayload.sessionToken(in: frame.fields)
        }) else { return }
        guard let tokenText = presented else { return reply.fail(.notRegistered) }
        let socket = reply.socket
        let hash: SessionHash
        if let memo = socket.tokenMemo, Sodium.constantTimeEqual(memo.text, tokenText) {
            hash = memo.hash
        } else {
            guard let token = SessionToken(base64: tokenText) else { return reply.fail(.notRegistered) }
            hash = token.hash
            socket.tokenMemo = (Array(tokenText), hash)
        }
        let registry = socket.context.registry
        if let cached = socket.authenticated, cached.hash.constantTimeEquals(hash) {
            guard !cached.isExpired(atMillis: WallTime.now().epochMillis) else {
                registry.unbind(socket)
                return reply.fail(.notRegistered)
            }
            return handler(cached)
        }
        reply.async { done in
            socket.context.auth.authenticate(hash) { result in
                defer { done() }
                guard !socket.connection.isClosed else { return }
                switch result {
                case .success(let session):
                    switch registry.bind(socket, to: session) {
                    case .refused:
                        reply.fail(.notRegistered)
                    case .unchanged:
                        handler(session)
                    case .joined:
                        // A socket presenting a token for the first time has come online:
                        // events kept while the user was away go first (docs/protocol.md "Messaging (1:1)").
                        reply.async { done in
                            socket.context.cameOnline(socket, as: session.whisperId) {
                                defer { done() }
                                handler(session)
                            }
                        }
                    }
                case .failure(let error):
                    reply.fail(error)
                }
            }
        }
    }
}
