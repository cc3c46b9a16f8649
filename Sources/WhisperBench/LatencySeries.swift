import Foundation

/// Every measured sample of a run as (when it was sent, how long it took), for the
/// latency-over-time chart (`scripts/bench-plot`): a number like p99 says how long the tail
/// is, the series says when it happens — periodically, in bursts, or evenly.
/// One `UInt64` per sample (µs since the window opened << 32 | latency µs), so 20,000 samples
/// a second for 20 s cost 3 MB.
struct LatencySeries: Sendable {
    private(set) var samples: [UInt64] = []

    mutating func record(sentAt: UInt64, windowStart: UInt64, nanoseconds: UInt64) {
        guard sentAt >= windowStart else { return }
        let offset = min((sentAt - windowStart) / 1_000, UInt64(UInt32.max))
        let micros = min(nanoseconds / 1_000, UInt64(UInt32.max))
        samples.append(offset << 32 | micros)
    }

    mutating func merge(_ other: LatencySeries) {
        samples.append(contentsOf: other.samples)
    }

    /// `sent_ms,latency_us` per sample, in time order.
    var csv: String {
        var lines = ["sent_ms,latency_us"]
        lines.reserveCapacity(samples.count + 1)
        for sample in samples.sorted() {
            let sentMicros = sample >> 32
            lines.append("\(Double(sentMicros) / 1_000),\(sample & 0xFFFF_FFFF)")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

extension LatencyRecorder {
    /// `percentile,latency_us` at log-spaced percentiles (50, 90, 99, 99.9, … 99.999, then the
    /// maximum): the HdrHistogram-style percentile curve `scripts/bench-plot` draws.
    var percentileCSV: String {
        var lines = ["percentile,latency_us"]
        guard count > 0 else { return lines.joined(separator: "\n") + "\n" }
        var step = 0.0
        while step <= 5.0 {
            let percentile = 100 * (1 - pow(10, -step))
            lines.append("\(percentile),\(histogram.valueAtPercentile(percentile))")
            step += 0.1
        }
        lines.append("100,\(histogram.max)")
        return lines.joined(separator: "\n") + "\n"
    }
}
