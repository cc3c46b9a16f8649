/// Percentiles of one latency distribution, in microseconds.
public struct LatencySummary: Sendable, Equatable {
    public var count: UInt64 = 0
    public var p50: UInt64 = 0
    public var p90: UInt64 = 0
    public var p99: UInt64 = 0
    public var p999: UInt64 = 0
    public var max: UInt64 = 0
    public var mean: Double = 0

    public init(count: UInt64 = 0, p50: UInt64 = 0, p90: UInt64 = 0, p99: UInt64 = 0, p999: UInt64 = 0,
                max: UInt64 = 0, mean: Double = 0) {
        self.count = count
        self.p50 = p50
        self.p90 = p90
        self.p99 = p99
        self.p999 = p999
        self.max = max
        self.mean = mean
    }

    /// `{"count":…,"p50_us":…,"p90_us":…,"p99_us":…,"p999_us":…,"max_us":…,"mean_us":…}`
    var report: ReportObject {
        ReportObject([
            ("count", .int(Int(clamping: count))), ("p50_us", .int(Int(clamping: p50))),
            ("p90_us", .int(Int(clamping: p90))), ("p99_us", .int(Int(clamping: p99))),
            ("p999_us", .int(Int(clamping: p999))), ("max_us", .int(Int(clamping: max))),
            ("mean_us", .double(mean)),
        ])
    }

    /// `p50 1.23 ms  p99 4.56 ms  p99.9 7.89 ms  max 12.3 ms (n=…)`
    var line: String {
        guard count > 0 else { return "no samples" }
        return "p50 \(Self.format(p50))  p99 \(Self.format(p99))  p99.9 \(Self.format(p999))  max \(Self.format(max))  (n=\(count))"
    }

    static func format(_ micros: UInt64) -> String {
        if micros < 1_000 { return "\(micros) µs" }
        if micros < 1_000_000 { return ReportFormat.fixed(Double(micros) / 1_000, digits: 2) + " ms" }
        return ReportFormat.fixed(Double(micros) / 1_000_000, digits: 2) + " s"
    }
}
