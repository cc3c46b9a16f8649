import WhisperProtocol

/// Answers "does this recipient exist, and is it banned?" for `send_message` without a
/// PostgreSQL round trip per message: one loop's cache over `IdentityStore.find`.
///
/// Identities are never deleted, so a known identity stays known; its ban status is
/// re-read after `activeTTLMillis`, and a ban announced by a revocation notice drops the
/// entry at once (`forget`). Unknown ids are remembered only briefly (`unknownTTLMillis`), so
/// an identity registered on another node becomes reachable within seconds. The cache
/// holds at most `capacity` entries; when full it starts over (entries are cheap to reload).
/// Loop-confined: no locks.
public final class RecipientDirectory {
    public enum Status: Sendable, Equatable {
        case unknown
        case active
        case banned
    }

    public struct Settings: Sendable {
        public var activeTTLMillis: Int64 = 60_000
        public var unknownTTLMillis: Int64 = 2_000
        public var capacity = 100_000

        public init() {}
    }

    private let identities: IdentityStore
    private let settings: Settings
    private let now: () -> Int64
    private var entries: [WhisperID: (status: Status, expiresAt: Int64)] = [:]

    public init(identities: IdentityStore, settings: Settings = Settings(), now: @escaping () -> Int64) {
        self.identities = identities
        self.settings = settings
        self.now = now
    }

    /// A cached answer completes at once, inside this call; a miss completes later, on the
    /// loop, with the database's answer.
    public func status(of id: WhisperID, completion: @escaping StoreCompletion<Status>) {
        let time = now()
        if let entry = entries[id], entry.expiresAt > time { return completion(.success(entry.status)) }
        identities.find(id) { [self] result in
            switch result {
            case .success(let identity):
                let status: Status = identity.map { $0.isBanned ? .banned : .active } ?? .unknown
                remember(id, status, at: now())
                completion(.success(status))
            case .failure(let error):
                completion(.failure(error))
            }
        }
    }

    /// The identity's status changed (a ban): the next look-up reads the database.
    public func forget(_ id: WhisperID) {
        entries[id] = nil
    }

    private func remember(_ id: WhisperID, _ status: Status, at time: Int64) {
        if entries.count >= settings.capacity { entries.removeAll(keepingCapacity: true) }
        let ttl = status == .unknown ? settings.unknownTTLMillis : settings.activeTTLMillis
        entries[id] = (status, time + ttl)
    }
}
