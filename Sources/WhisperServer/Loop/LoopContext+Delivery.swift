import WhisperProtocol
import WhisperServices

/// Live delivery on this loop: the end of every route (`LoopRouter` for this node's
/// frames, `DeliveryHub` for other loops' and other nodes').
extension LoopContext {
    /// Writes a routed frame to `user`'s sockets on this loop. Nobody there (the socket just
    /// closed): a message stays in the pending queue; an event is kept for the next login;
    /// either wakes the user by push.
    func deliverLocal(_ frame: consuming [UInt8], to user: WhisperID, kind: DeliveryKind, receivedAtMicros: Int64) {
        let sockets = registry.sockets(of: user)
        guard !sockets.isEmpty else {
            guard kind != .signal else { return }
            wakeUps?.wake(user)
            guard kind == .event else { return }
            messageStore.keepEvent(frame, for: user) { [shared] result in
                if case .failure(let error) = result {
                    shared.log.warn("event_keep_failed", whisperId: user.string, ["reason": .string(error.description)])
                }
            }
            return
        }
        let byteCount = frame.count
        if sockets.count == 1, let only = sockets.first {
            only.send(consume frame)
        } else {
            for socket in sockets { socket.send(copy frame) }
        }
        guard kind == .message else { return }
        shared.metrics.deliveredLive(receivedAtMicros: receivedAtMicros)
        // Per message: debug, so the default level keeps no trace of each delivery (docs/security.md).
        if shared.log.isEnabled(.debug) {
            shared.log.debug("message_delivered", connId: sockets.first?.connection.id, whisperId: user.string,
                            ["path": "live", "bytes": .int(byteCount)])
        }
    }
}
