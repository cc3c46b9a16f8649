import WhisperProtocol

/// A status announcement that reached peers whose sockets are on this node: the service writes
/// `frame` to each of `peers` (peers on other nodes got it through their node's channel).
public struct PresenceAnnouncement: Sendable {
    public let frame: [UInt8]
    public let peers: [(user: WhisperID, route: LiveRoute)]

    public init(frame: [UInt8], peers: [(user: WhisperID, route: LiveRoute)]) {
        self.frame = frame
        self.peers = peers
    }
}

/// What the store found when a socket came to hold a user.
public struct PresenceArrival: Sendable {
    /// Events kept while the user was offline, oldest first (the store keeps them until
    /// `forgetEvents`).
    public let events: [[UInt8]]
    /// The `online` announcement, if one was made now.
    public let announcement: PresenceAnnouncement?
    /// Calls ring for the user: their offers are to be replayed (`HeldCallOffers`).
    public let hasHeldCalls: Bool

    public init(events: [[UInt8]], announcement: PresenceAnnouncement?, hasHeldCalls: Bool) {
        self.events = events
        self.announcement = announcement
        self.hasHeldCalls = hasHeldCalls
    }
}

/// Routes, presence records and the presence sweep (Redis: `RedisPresence`, `PresenceScripts`).
/// Each call is one atomic step, so the route and what the peers hear cannot come apart.
public protocol PresenceStore: AnyObject {
    /// The socket at `route` now holds `user`; also announces `online` when due.
    func online(_ user: WhisperID, at route: LiveRoute, completion: @escaping StoreCompletion<PresenceArrival>)
    /// The kept `events` of `online` were written to the socket: the store forgets them (unless
    /// its queue no longer starts with them; then a later login may get them again).
    func forgetEvents(_ user: WhisperID, _ events: [[UInt8]], completion: @escaping StoreCompletion<Void>)
    /// The socket at `route` let go of `user` (unless a newer socket took over); announces
    /// `offline` now when the grace period is zero, else a sweep does later.
    func offline(_ user: WhisperID, at route: LiveRoute, completion: @escaping StoreCompletion<PresenceAnnouncement?>)
    /// Takes the users of dead nodes offline and makes the announcements that are due, each
    /// claimed by exactly one node; answers those with peers on this node.
    func sweep(completion: @escaping StoreCompletion<[PresenceAnnouncement]>)
}

/// The offers of calls still ringing for a user, each followed by the caller's held ICE
/// candidates (`CallService`).
public protocol HeldCallOffers: AnyObject {
    func heldCalls(for user: WhisperID, completion: @escaping (Result<[[UInt8]], ServiceError>) -> Void)
}

extension CallService: HeldCallOffers {}
