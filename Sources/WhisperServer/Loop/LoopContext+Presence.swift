import WhisperProtocol
import WhisperServices

/// A socket coming to hold an identity or letting go of it, on this loop: the user's route
/// in Redis, the events kept while it was offline, what its direct peers hear of it, and
/// revocations from any node.
extension LoopContext {
    func route(of socket: WebSocketDriver) -> LiveRoute {
        LiveRoute(node: shared.nodeId, loop: index, connection: socket.connection.id)
    }

    /// `socket` now holds `whisperId`: frames for the user are routed here from now on, and
    /// the events kept while it was offline are sent first, in order, then the offers of calls
    /// still ringing for it (docs/protocol.md "Calls"), then what was routed to the socket while
    /// a login's ack was pending; its direct peers hear it is online (docs/protocol.md
    /// "Presence"). `beforeKept` runs once the route is here, before those frames (a login's
    /// ack); `then` runs after them.
    func cameOnline(_ socket: WebSocketDriver, as whisperId: WhisperID, beforeKept: @escaping () -> Void = {},
                    then: @escaping () -> Void) {
        presence.cameOnline(whisperId, at: route(of: socket)) { [self, loop] frames, written in
            beforeKept()
            var all = true
            for frame in frames {
                if !socket.send(frame) { all = false }
            }
            // Forgotten in Redis only once they left for the socket: a timer due after this
            // iteration began runs in a later one, after this one flushed its sockets. One the
            // socket did not take (it is closing) stays for the next login.
            if all { _ = loop.schedule(afterNanoseconds: 1, written) }
            releaseHeld(of: socket, user: whisperId)
            then()
        }
    }

    /// A login (`register_proof`) of `whisperId`, before its `register_ack`: the Redis copy of
    /// its block list is rewritten from PostgreSQL (docs/protocol.md "Blocking"), so a copy
    /// Redis lost holds again before the user can be reached or comes online. A failed
    /// rewrite is logged and the login stands (the copy stays as it was). `then` runs after,
    /// in every case.
    func restoreBlocks(of whisperId: WhisperID, connId: UInt64, then: @escaping () -> Void) {
        blocks.restore(whisperId) { [shared] result in
            if case .failure(let error) = result {
                shared.log.warn("blocks_restore_failed", connId: connId, whisperId: whisperId.string,
                                ["reason": .string(error.logReason)])
            }
            then()
        }
    }

    /// `socket` no longer holds `whisperId` (logout, revocation, close, idle timeout, another
    /// login): its route is withdrawn unless a newer socket took it over, and its peers hear
    /// it is offline once the grace period has passed.
    func wentOffline(_ socket: WebSocketDriver, as whisperId: WhisperID) {
        pendingRouteReleases += 1
        presence.wentOffline(whisperId, at: route(of: socket)) { [self] in pendingRouteReleases -= 1 }
    }

    /// A revocation notice from any node (through `NodeSubscriptions`). A ban or an account
    /// deletion also makes the identity's cached recipient status stale.
    func applyRevocation(_ notice: RevocationNotice) {
        if notice.reason.shutsOutIdentity, let whisperId = WhisperID.validate(notice.whisperId) { recipients.forget(whisperId) }
        registry.apply(notice, now: loop.now)
    }

    /// After the node's subscriber (re)connected: notices may have been lost, so check
    /// every cached session against Redis and forget those that died.
    func revalidateSessions() {
        for socket in registry.authenticatedSockets {
            guard let session = socket.authenticated else { continue }
            auth.isStillValid(session) { [registry] result in
                guard case .success(false) = result, socket.authenticated?.hash == session.hash else { return }
                registry.unbind(socket)
            }
        }
    }
}
