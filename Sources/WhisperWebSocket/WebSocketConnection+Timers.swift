extension WebSocketConnection {
    /// Runs the timers at `now` (monotonic nanoseconds): keepalive ping after `pingInterval` of
    /// silence, close after `idleTimeout` of silence, give up on the closing handshake after
    /// `closeTimeout`.
    public mutating func tick(now: UInt64) -> [WebSocketAction] {
        switch state {
        case .closed:
            return []
        case .closing(let since):
            guard elapsed(since: since, now: now) >= closeTimeout else { return [] }
            // RFC 6455 §7.1.1: the peer never answered; drop TCP without waiting for a flush.
            state = .closed
            return [.close(afterFlush: false)]
        case .open:
            if elapsed(since: lastReceived, now: now) >= idleTimeout {
                // Contract §1: a socket silent this long is closed.
                state = .closed
                closeCode = .goingAway
                return [.send(WebSocketFrameEncoder.close(code: .goingAway, reason: "idle timeout")), .close(afterFlush: true)]
            }
            if elapsed(since: max(lastReceived, lastPingSent), now: now) >= pingInterval {
                // RFC 6455 §5.5.2: a Ping as keepalive; any reply (or other traffic) is activity.
                lastPingSent = now
                return [.send(WebSocketFrameEncoder.ping())]
            }
            return []
        }
    }

    /// When `tick` next has something to do, for the driver's timer; nil when closed.
    public var nextDeadline: UInt64? {
        switch state {
        case .closed:
            return nil
        case .closing(let since):
            return since.addingClamped(closeTimeout)
        case .open:
            let idle = lastReceived.addingClamped(idleTimeout)
            let ping = max(lastReceived, lastPingSent).addingClamped(pingInterval)
            return min(idle, ping)
        }
    }

    /// `now - since`, zero if the driver hands us an earlier time than before.
    private func elapsed(since: UInt64, now: UInt64) -> UInt64 {
        now > since ? now - since : 0
    }
}

extension UInt64 {
    func addingClamped(_ other: UInt64) -> UInt64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? .max : sum
    }
}
