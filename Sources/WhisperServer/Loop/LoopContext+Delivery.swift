import WhisperProtocol
import WhisperServices

/// Live delivery on this loop: the end of every route (`LoopRouter` for this node's
/// frames, `DeliveryHub` for other loops' and other nodes').
extension LoopContext {
    /// Writes a routed frame to `user`'s sockets on this loop. Nobody there, or no socket that
    /// takes it (it just closed, or is closing in a drain): a message stays in the pending
    /// queue; an event is kept for the next login; either wakes the user by push.
    func deliverLocal(_ frame: consuming [UInt8], to user: WhisperID, kind: DeliveryKind, receivedAtMicros: Int64) {
        let sockets = registry.sockets(of: user)
        if kind == .event {
            // Kept when no socket takes it, so every socket gets a copy (events are small).
            var written = false
            for socket in sockets {
                if socket.deliver(copy frame, isEvent: true) { written = true }
            }
            if !written { keep(frame, for: user) }
            return
        }
        let byteCount = frame.count
        var written = false
        if sockets.count == 1, let only = sockets.first {
            written = only.deliver(consume frame, isEvent: false)
        } else {
            for socket in sockets {
                if socket.deliver(copy frame, isEvent: false) { written = true }
            }
        }
        guard kind == .message else { return }
        guard written else {
            wakeUps?.wake(user)
            return
        }
        shared.metrics.deliveredLive(receivedAtMicros: receivedAtMicros)
        // Per message: debug, so the default level keeps no trace of each delivery (docs/security.md).
        if shared.log.isEnabled(.debug) {
            shared.log.debug("message_delivered", connId: sockets.first?.connection.id, whisperId: user.string,
                            ["path": "live", "bytes": .int(byteCount)])
        }
    }

    /// Sends what was routed to `socket` while its login's ack was pending (`WebSocketDriver.deliver`),
    /// after the ack and the frames kept while offline. A held event the socket no longer takes
    /// is kept for the next login; a held message is still in the pending queue.
    func releaseHeld(of socket: WebSocketDriver, user: WhisperID) {
        for held in socket.takeHeld() where !socket.send(held.frame) && held.isEvent {
            keep(held.frame, for: user)
        }
    }

    /// An event no socket of `user` took, kept for its next login; the user is woken by push.
    private func keep(_ frame: [UInt8], for user: WhisperID) {
        wakeUps?.wake(user)
        messageStore.keepEvent(frame, for: user) { [shared] result in
            if case .failure(let error) = result {
                shared.log.warn("event_keep_failed", whisperId: user.string, ["reason": .string(error.description)])
            }
        }
    }
}
