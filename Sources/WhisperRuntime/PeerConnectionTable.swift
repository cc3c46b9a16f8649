import Synchronization

/// Open connections per peer IP address on one node, shared by every loop's listener: the
/// loops accept on their own SO_REUSEPORT sockets, so only a node-wide count bounds what one
/// address holds (docs/operations.md "Hostile clients"). One short mutex section per accept
/// and per close; the count is exact, not per loop. With `rate`, an address must also have a
/// token for each new connection (`PeerRateLimiter`).
public final class PeerConnectionTable: Sendable {
    /// Why `admit` turned a connection away (`whisper_connections_refused_total{reason}`).
    public enum Refusal: String, Sendable {
        /// The address holds `limitPerPeer` connections.
        case concurrent = "per_ip"
        /// The address opens connections faster than its rate.
        case rate = "per_ip_rate"
    }

    /// Connections one address may hold at once; 0 switches the limit off.
    public let limitPerPeer: Int
    public let rate: PeerRateLimiter?
    private let counts = Mutex<[PeerHost: Int]>([:])
    private let onRefused: @Sendable (Refusal) -> Void

    /// `onRefused` runs (on the accepting loop) for every connection turned away.
    public init(limitPerPeer: Int, rate: PeerRateLimiter? = nil, onRefused: @escaping @Sendable (Refusal) -> Void = { _ in }) {
        self.limitPerPeer = limitPerPeer
        self.rate = rate
        self.onRefused = onRefused
    }

    /// Counts one more connection from `peer`, or — when it opens connections faster than its
    /// rate or already holds `limitPerPeer` — counts nothing and answers false. `now` is the
    /// loop's monotonic clock.
    public func admit(_ peer: SocketAddress, now: UInt64) -> Bool {
        if let rate, !rate.take(peer, now: now) {
            onRefused(.rate)
            return false
        }
        guard limitPerPeer > 0 else { return true }
        let host = peer.host
        let admitted = counts.withLock { counts -> Bool in
            let open = counts[host, default: 0]
            guard open < limitPerPeer else { return false }
            counts[host] = open + 1
            return true
        }
        if !admitted { onRefused(.concurrent) }
        return admitted
    }

    /// One connection `admit` counted has closed.
    public func release(_ peer: SocketAddress) {
        guard limitPerPeer > 0 else { return }
        let host = peer.host
        counts.withLock { counts in
            let open = counts[host, default: 0]
            // Entries are removed at zero, so the table holds only addresses with open connections.
            counts[host] = open > 1 ? open - 1 : nil
        }
    }

    /// Connections `peer`'s address holds now.
    public func openConnections(of peer: SocketAddress) -> Int {
        counts.withLock { $0[peer.host, default: 0] }
    }
}
