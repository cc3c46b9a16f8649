/// One row of `bans` (docs/protocol.md "Admin API"). A ban is in force while `until` is
/// absent (permanent) or in the future; an expired row stays listed until it is lifted or
/// replaced, and no longer applies anywhere.
public struct BanRecord: Sendable, Equatable {
    public let whisperId: String
    public let reason: String
    public let createdAtMillis: Int64
    public let untilMillis: Int64?

    public init(whisperId: String, reason: String, createdAtMillis: Int64, untilMillis: Int64?) {
        self.whisperId = whisperId
        self.reason = reason
        self.createdAtMillis = createdAtMillis
        self.untilMillis = untilMillis
    }

    public func isActive(atMillis now: Int64) -> Bool { untilMillis.map { $0 > now } ?? true }
}
