import Histogram

/// Latencies in microseconds in an HdrHistogram (3 significant digits, 1 µs … 10 min), so
/// p99.9 and max are exact to 0.1 % whatever the count; shards merge theirs at the end.
struct LatencyRecorder: Sendable {
    static let highestMicros: UInt64 = 600_000_000
    private(set) var histogram = Histogram<UInt64>(lowestDiscernibleValue: 1, highestTrackableValue: highestMicros,
                                                   numberOfSignificantValueDigits: .three)

    init() {}

    mutating func record(nanoseconds: UInt64) {
        // Beyond the range is clamped rather than dropped, so max still says "very slow".
        _ = histogram.record(min(max(nanoseconds / 1_000, 1), Self.highestMicros))
    }

    mutating func merge(_ other: LatencyRecorder) {
        histogram.add(other.histogram)
    }

    var count: UInt64 { histogram.totalCount }

    var summary: LatencySummary {
        guard histogram.totalCount > 0 else { return LatencySummary() }
        return LatencySummary(count: histogram.totalCount,
                              p50: histogram.valueAtPercentile(50), p90: histogram.valueAtPercentile(90),
                              p99: histogram.valueAtPercentile(99), p999: histogram.valueAtPercentile(99.9),
                              max: histogram.max, mean: histogram.mean)
    }
}
