import Foundation

extension ClientSession {
    /// Stays connected until `shouldStop()` is true: reconnects after a loss with exponential
    /// backoff and jitter, or after a 1001 close's `retryAfterMs`, or a login's `retryAfterMs`.
    /// Returns when asked to stop; throws a terminal error (4001/4003/4004, `AUTH_FAILED`,
    /// `USER_BANNED`, storage) without retrying it.
    ///
    /// `between` runs on this thread after every poll, connected or not: where an app (or the
    /// CLI's `chat`) hands over what the user typed meanwhile (`send` queues it when offline).
    public func run(pollMillis: Int = 250, between: () throws(ClientError) -> Void = {},
                    until shouldStop: () -> Bool) throws(ClientError) {
        var failures = 0
        while !shouldStop() {
            do {
                if connection == nil {
                    try connect()
                    failures = 0
                }
                try pump(timeoutMillis: pollMillis)
                try between()
            } catch {
                disconnect()
                onEvent(.disconnected(error))
                if error.isTerminal { throw error }
                let delay: Int64
                switch error {
                case .closed(_, let retryAfter?): delay = retryAfter
                case .server(_, _, let retryAfter?): delay = retryAfter
                default: delay = reconnectBackoff.delayMillis(attempt: failures)
                }
                failures += 1
                Self.sleep(millis: delay, unless: shouldStop)
            }
        }
    }

    /// Sleeps in short slices so a stop request is seen promptly.
    static func sleep(millis: Int64, unless shouldStop: () -> Bool) {
        var left = millis
        while left > 0, !shouldStop() {
            let slice = min(left, 50)
            Thread.sleep(forTimeInterval: Double(slice) / 1000)
            left -= slice
        }
    }
}
