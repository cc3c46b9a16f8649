import WhisperProtocol
import WhisperServices

/// A socket coming to hold an identity or letting go of it, on this loop: the user's route
/// in Redis, the events kept while it was offline, and revocations from any node.
extension LoopContext {
    func route(of socket: WebSocketDriver) -> LiveRoute {
        LiveRoute(node: shared.nodeId, loop: index, connection: socket.connection.id)
    }

    /// `socket` now holds `whisperId`: frames for the user are routed here from now on, and
    /// the events kept while it was offline are sent first, in order, then the offers of calls
    /// still ringing for it (docs/protocol.md "Calls"). `then` runs after.
    func cameOnline(_ socket: WebSocketDriver, as whisperId: WhisperID, then: @escaping () -> Void) {
        presence.online(whisperId, at: route(of: socket)) { [self] result in
            switch result {
            case .success(let events):
                for frame in events { socket.send(frame) }
            case .failure(let error):
                shared.log.warn("presence_online_failed", connId: socket.connection.id, whisperId: whisperId.string,
                                ["reason": .string(error.description)])
            }
            calls.heldCalls(for: whisperId) { [shared] result in
                switch result {
                case .success(let frames):
                    for frame in frames { socket.send(frame) }
                case .failure(let error):
                    shared.log.warn("held_calls_failed", connId: socket.connection.id, whisperId: whisperId.string,
                                    ["reason": .string(error.logReason)])
                }
                then()
            }
        }
    }

    /// `socket` no longer holds `whisperId` (logout, revocation, close, another login):
    /// its route is withdrawn unless a newer socket took it over.
    func wentOffline(_ socket: WebSocketDriver, as whisperId: WhisperID) {
        presence.offline(whisperId, at: route(of: socket)) { [shared] result in
            if case .failure(let error) = result {
                shared.log.warn("presence_offline_failed", connId: socket.connection.id, whisperId: whisperId.string,
                                ["reason": .string(error.description)])
            }
        }
    }

    /// A revocation notice from any node (through `NodeSubscriptions`). A ban also makes
    /// the identity's cached recipient status stale.
    func applyRevocation(_ notice: RevocationNotice) {
        if notice.reason == .banned, let whisperId = WhisperID.validate(notice.whisperId) { recipients.forget(whisperId) }
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
