/// What the database knows about one Whisper ID, for `GET /admin/users/{whisperId}`
/// (docs/protocol.md): its `users` row, its mark in `deleted_identities`, its ban row and its
/// devices (`devices`: platform, whether push tokens are stored — never the tokens — and the
/// last login or token update). Nothing about sockets or sessions (Redis) is in it.
public struct AdminUserRecord: Sendable, Equatable {
    public struct Device: Sendable, Equatable {
        public let deviceId: String
        public let platform: String
        public let hasPushToken: Bool
        public let hasVoipToken: Bool
        public let createdAtMillis: Int64
        public let lastActiveAtMillis: Int64

        public init(deviceId: String, platform: String, hasPushToken: Bool, hasVoipToken: Bool,
                    createdAtMillis: Int64, lastActiveAtMillis: Int64) {
            self.deviceId = deviceId
            self.platform = platform
            self.hasPushToken = hasPushToken
            self.hasVoipToken = hasVoipToken
            self.createdAtMillis = createdAtMillis
            self.lastActiveAtMillis = lastActiveAtMillis
        }
    }

    public enum Status: String, Sendable {
        /// Registered, no ban in force.
        case active
        /// A ban in force (registered or not: an id may be banned before it is minted).
        case banned
        /// Deleted by its owner (`delete_account`): it can never log in again.
        case deleted
        /// Never registered; only an expired ban row mentions it.
        case unregistered
    }

    public let whisperId: String
    /// `users.created_at`; nil when there is no `users` row (never registered, or deleted).
    public let registeredAtMillis: Int64?
    public let deletedAtMillis: Int64?
    public let ban: BanRecord?
    /// The most recently active devices first, at most `AdminService.userDeviceLimit`.
    public let devices: [Device]
    /// All device rows of the identity (may exceed `devices.count`).
    public let deviceCount: Int64

    public init(whisperId: String, registeredAtMillis: Int64?, deletedAtMillis: Int64?, ban: BanRecord?,
                devices: [Device], deviceCount: Int64) {
        self.whisperId = whisperId
        self.registeredAtMillis = registeredAtMillis
        self.deletedAtMillis = deletedAtMillis
        self.ban = ban
        self.devices = devices
        self.deviceCount = deviceCount
    }

    /// Deleted outranks a ban (a deleted id can never come back), a ban in force outranks
    /// registration.
    public func status(atMillis now: Int64) -> Status {
        if deletedAtMillis != nil { return .deleted }
        if let ban, ban.isActive(atMillis: now) { return .banned }
        return registeredAtMillis == nil ? .unregistered : .active
    }

    /// The latest `lastActiveAt` of its devices (a login or a push-token update).
    public var lastActiveAtMillis: Int64? { devices.map(\.lastActiveAtMillis).max() }
}
