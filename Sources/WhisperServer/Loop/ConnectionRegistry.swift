import WhisperOps
import WhisperProtocol
import WhisperServices

/// One loop's routing table of authenticated sockets: whisperId → sockets
/// (docs/architecture.md "Sessions across nodes"). A socket is in it exactly while it holds a session
/// (`WebSocketDriver.authenticated`), and only this type sets or clears that, so the table,
/// the cache and `whisper_ws_authenticated_connections` cannot drift apart.
/// Loop-confined: no locks.
final class ConnectionRegistry {
    /// What `bind` did.
    enum BindOutcome {
        /// The socket is closed or the session was revoked moments ago: not bound.
        case refused
        /// The socket already held a session of this identity (refresh, a re-presented token).
        case unchanged
        /// The socket now holds this identity and did not before: it has come online.
        case joined
    }

    /// Called when a socket stops holding an identity (logout, revocation, close, or a
    /// login as someone else), so its route can be withdrawn.
    var onLeave: ((WebSocketDriver, WhisperID) -> Void)?
    private var byIdentity: [WhisperID: [UInt64: WebSocketDriver]] = [:]
    /// Hashes named by revocation notices in the last `revokedMemoryNanos`: a session looked
    /// up just before its revocation (reply in flight when the notice arrived) must not be
    /// bound afterwards.
    private var recentlyRevoked: [SessionHash: UInt64] = [:]
    private let node: String
    private let authenticatedGauge: Gauge
    static let revokedMemoryNanos: UInt64 = 60 * 1_000_000_000

    init(node: String, authenticatedGauge: Gauge) {
        self.node = node
        self.authenticatedGauge = authenticatedGauge
    }

    var authenticatedSockets: [WebSocketDriver] { byIdentity.values.flatMap(\.values) }

    /// A view of the table, not a copy: every delivered frame asks.
    func sockets(of whisperId: WhisperID) -> [UInt64: WebSocketDriver].Values {
        (byIdentity[whisperId] ?? [:]).values
    }

    /// Caches `session` on `socket` (replacing whatever it held).
    @discardableResult
    func bind(_ socket: WebSocketDriver, to session: SessionRecord) -> BindOutcome {
        guard !socket.connection.isClosed, recentlyRevoked[session.hash] == nil else { return .refused }
        var outcome = BindOutcome.joined
        if let current = socket.authenticated {
            remove(socket, from: current.whisperId)
            if current.whisperId == session.whisperId {
                outcome = .unchanged
            } else {
                onLeave?(socket, current.whisperId)
            }
        } else {
            authenticatedGauge.increment()
        }
        socket.authenticated = session
        byIdentity[session.whisperId, default: [:]][socket.connection.id] = socket
        return outcome
    }

    /// The socket no longer holds a session (logout, revocation, close).
    func unbind(_ socket: WebSocketDriver) {
        guard let current = socket.authenticated else { return }
        remove(socket, from: current.whisperId)
        socket.authenticated = nil
        authenticatedGauge.decrement()
        onLeave?(socket, current.whisperId)
    }

    /// A `RevocationNotice` from any node: sockets of the identity holding a listed session
    /// (any session, for a ban or an account deletion) are closed with the reason's code after
    /// a `session_revoked` frame, or — for refresh and logout elsewhere — just forget it. The
    /// socket that caused the revocation is spared: it already holds its new session (or, for
    /// an account deletion, its handler answers and closes it).
    func apply(_ notice: RevocationNotice, now: UInt64) {
        for hash in notice.hashes { recentlyRevoked[hash] = now &+ Self.revokedMemoryNanos }
        guard let whisperId = WhisperID.validate(notice.whisperId), let sockets = byIdentity[whisperId] else { return }
        for socket in Array(sockets.values) {
            if let origin = notice.origin, origin.node == node, origin.connection == socket.connection.id { continue }
            guard let held = socket.authenticated,
                  notice.reason.shutsOutIdentity || notice.hashes.contains(held.hash)
            else { continue }
            unbind(socket)
            guard let code = notice.reason.closeCode else { continue }
            if socket.ackPending {
                socket.revocationAfterAck = (notice.reason, code)
            } else {
                socket.revoke(reason: notice.reason, code: code)
            }
        }
    }

    /// Forgets revoked hashes older than the race window (called once a second).
    func prune(now: UInt64) {
        guard !recentlyRevoked.isEmpty else { return }
        recentlyRevoked = recentlyRevoked.filter { $0.value > now }
    }

    private func remove(_ socket: WebSocketDriver, from whisperId: WhisperID) {
        byIdentity[whisperId]?[socket.connection.id] = nil
        if byIdentity[whisperId]?.isEmpty == true { byIdentity[whisperId] = nil }
    }
}
