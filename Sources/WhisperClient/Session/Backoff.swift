import WhisperProtocol

/// Exponential backoff with jitter (spec §5.4): attempt n waits a random time in
/// [d/2, d] where d = min(cap, base · 2ⁿ). The jitter spreads a crowd of clients that lost a
/// node at the same moment.
public struct Backoff: Sendable {
    public var baseMillis: Int64
    public var capMillis: Int64

    public init(baseMillis: Int64 = 500, capMillis: Int64 = 30_000) {
        (self.baseMillis, self.capMillis) = (max(1, baseMillis), max(1, capMillis))
    }

    /// The delay before attempt `attempt` (0 = the first retry).
    public func delayMillis(attempt: Int, random: (ClosedRange<Int64>) -> Int64 = { Int64.random(in: $0) }) -> Int64 {
        let shift = Int64(min(max(attempt, 0), 30))
        let (scaled, overflow) = baseMillis.multipliedReportingOverflow(by: Int64(1) << shift)
        let ceiling = overflow ? capMillis : min(capMillis, scaled)
        return random(ceiling / 2...ceiling)
    }

    /// A 1001 close's hint (docs/protocol.md "Close codes"): `{"reason":…,"retryAfterMs":n}`,
    /// 0…1000. Nil for an empty or non-JSON reason (an older server): then use a delay of our own.
    public static func retryAfterMillis(closeReason: [UInt8]) -> Int64? {
        guard !closeReason.isEmpty, let value = try? JSONParser.parse(closeReason),
              let millis = value["retryAfterMs"]?.int64Value, (0...60_000).contains(millis) else { return nil }
        return millis
    }
}
