/// What the two timed phases of the drain scenario measured.
public struct DrainFill: Sendable {
    public var sent = 0
    public var accepted = 0
    public var seconds = 0.0
    /// Stopped because nothing was answered for `stallSeconds`.
    public var stalled = false
    public var errors = ErrorTally()

    public init() {}

    static func merged(_ parts: [DrainFill]) -> DrainFill {
        var total = DrainFill()
        for part in parts {
            total.sent += part.sent
            total.accepted += part.accepted
            total.seconds = max(total.seconds, part.seconds)
            total.stalled = total.stalled || part.stalled
            total.errors.merge(part.errors)
        }
        return total
    }
}

public struct DrainFetch: Sendable {
    /// Messages in all pages, unique ones, and repeats of an id already paged out.
    public var messages = 0
    public var unique = 0
    public var duplicates = 0
    /// Ids that are not this run's.
    public var foreign = 0
    public var pages = 0
    public var seconds = 0.0
    public var errors = ErrorTally()

    public init() {}
}
