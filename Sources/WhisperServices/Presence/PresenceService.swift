import WhisperOps
import WhisperProtocol

/// Which socket holds each identity and what its direct peers hear of it (docs/protocol.md
/// "Presence").
///
/// `cameOnline` (a socket now holds the user, after its `register_ack`): one store step makes the
/// socket the user's route, hands over the events kept while it was offline and announces
/// `online` when due; then, only if calls ring for the user, their offers (docs/protocol.md
/// "Calls"). The socket is sent the events first, in order, then the offers; the events are
/// forgotten once written. A failed step is logged and skipped: the login stands.
/// `wentOffline` (logout, revocation, close, idle timeout, another login): the route is withdrawn
/// unless a newer socket took it over, and `offline` is announced once the grace period has
/// passed — by this call when the grace is zero, else by a sweep.
/// `sweep` (every node, every `Limits.presenceSweepIntervalMillis`): the announcements that became
/// due and the users of nodes that died.
/// Announcements reach the peers on this node through the router; the store published them to
/// the other nodes. A peer whose socket is gone by then simply misses one.
public final class PresenceService {
    public typealias Completion<T> = (Result<T, ServiceError>) -> Void

    private let store: PresenceStore
    private let calls: HeldCallOffers
    private let router: MessageRouter
    private let log: Log

    public init(store: PresenceStore, calls: HeldCallOffers, router: MessageRouter, log: Log) {
        self.store = store
        self.calls = calls
        self.router = router
        self.log = log
    }

    /// Answers the frames for the socket, in order (maybe none), and `written`, which the caller
    /// runs once they have all left for the socket: only then are the kept events forgotten, so
    /// a node that dies in between leaves them for the next login.
    public func cameOnline(_ user: WhisperID, at route: LiveRoute,
                           completion: @escaping (_ frames: [[UInt8]], _ written: @escaping () -> Void) -> Void) {
        store.online(user, at: route) { [self] result in
            var frames: [[UInt8]] = []
            switch result {
            case .success(let arrival):
                frames = arrival.events
                arrival.announcement.map(announce)
                // Nothing rings for the user: no second step (most logins).
                guard arrival.hasHeldCalls else { return completion(frames, forgetting(arrival.events, of: user)) }
            case .failure(let error):
                log.warn("presence_online_failed", connId: route.connection, whisperId: user.string,
                         ["reason": .string(error.description)])
            }
            let kept = frames
            calls.heldCalls(for: user) { [self] result in
                switch result {
                case .success(let offers):
                    frames += offers
                case .failure(let error):
                    log.warn("held_calls_failed", connId: route.connection, whisperId: user.string,
                             ["reason": .string(error.logReason)])
                }
                completion(frames, forgetting(kept, of: user))
            }
        }
    }

    /// What `cameOnline`'s caller runs once the frames were written.
    private func forgetting(_ events: [[UInt8]], of user: WhisperID) -> () -> Void {
        guard !events.isEmpty else { return {} }
        return { [store, log] in
            store.forgetEvents(user, events) { result in
                if case .failure(let error) = result {
                    log.warn("kept_events_forget_failed", whisperId: user.string, ["reason": .string(error.description)])
                }
            }
        }
    }

    /// `completion` runs once the store answered (the drain waits for these).
    public func wentOffline(_ user: WhisperID, at route: LiveRoute, completion: @escaping () -> Void) {
        store.offline(user, at: route) { [self] result in
            switch result {
            case .success(let announcement):
                announcement.map(announce)
            case .failure(let error):
                log.warn("presence_offline_failed", connId: route.connection, whisperId: user.string,
                         ["reason": .string(error.description)])
            }
            completion()
        }
    }

    /// Answers how many announcements reached peers on this node.
    public func sweep(completion: @escaping Completion<Int>) {
        store.sweep { [self] result in
            completion(result.map { announcements in
                announcements.forEach(announce)
                return announcements.count
            }.mapError { .storage($0) })
        }
    }

    private func announce(_ announcement: PresenceAnnouncement) {
        for peer in announcement.peers {
            router.deliver(announcement.frame, to: peer.user, at: peer.route, kind: .signal, receivedAtMicros: 0)
        }
    }
}
