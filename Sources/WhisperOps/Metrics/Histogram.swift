import Synchronization

/// A distribution over explicit bucket upper bounds (plus the implicit `+Inf`).
///
/// `observe` is lock-free: a binary search for the bucket, one relaxed atomic add on that
/// bucket's own (non-cumulative) count, and a compare-and-swap loop adding to the sum, kept as
/// the bit pattern of a Double. Cumulative counts and `_count` are computed at scrape time from
/// the per-bucket counts, so `_count` always equals the `+Inf` bucket. NaN observations are
/// ignored.
public final class Histogram: @unchecked Sendable {
    // @unchecked: `slots` is allocated once in init, freed in deinit, and only ever accessed
    // through its Atomic elements.
    public let upperBounds: [Double]
    private let slots: UnsafeMutablePointer<Atomic<UInt64>>
    private let slotCount: Int
    private let sumBits = Atomic<UInt64>(0)  // 0.0.bitPattern == 0

    /// Prometheus' default buckets, in seconds.
    public static let defaultBuckets: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    /// `count` bounds `start`, `start*factor`, …
    public static func exponentialBuckets(start: Double, factor: Double, count: Int) -> [Double] {
        var bounds: [Double] = []
        var bound = start
        for _ in 0..<max(0, count) {
            bounds.append(bound)
            bound *= factor
        }
        return bounds
    }

    /// `upperBounds` must be finite and strictly increasing (checked at registration).
    init(upperBounds: [Double]) {
        self.upperBounds = upperBounds
        slotCount = upperBounds.count + 1
        slots = .allocate(capacity: slotCount)
        for index in 0..<slotCount {
            (slots + index).initialize(to: Atomic(0))
        }
    }

    deinit {
        slots.deinitialize(count: slotCount)
        slots.deallocate()
    }

    /// Records one observation (seconds for latency histograms).
    public func observe(_ value: Double) {
        guard !value.isNaN else { return }
        slots[bucketIndex(for: value)].wrappingAdd(1, ordering: .relaxed)
        var current = sumBits.load(ordering: .relaxed)
        while true {
            let updated = (Double(bitPattern: current) + value).bitPattern
            let (exchanged, original) = sumBits.compareExchange(
                expected: current, desired: updated, ordering: .relaxed)
            if exchanged { return }
            current = original
        }
    }

    /// Records a duration measured in monotonic nanoseconds, as seconds.
    public func observe(nanoseconds: UInt64) {
        observe(Double(nanoseconds) / 1e9)
    }

    /// The first bucket whose bound is ≥ value (`le` is inclusive), or the `+Inf` slot.
    @inline(__always)
    private func bucketIndex(for value: Double) -> Int {
        var low = 0
        var high = upperBounds.count
        while low < high {
            let middle = (low + high) / 2
            if value <= upperBounds[middle] { high = middle } else { low = middle + 1 }
        }
        return low
    }

    /// Total observations so far.
    public var count: UInt64 { snapshot().count }

    /// Sum of observations so far.
    public var sum: Double { Double(bitPattern: sumBits.load(ordering: .relaxed)) }

    /// Cumulative counts per bound (last one is `+Inf`), the sum and the count, as of now.
    func snapshot() -> HistogramSnapshot {
        var cumulative: [UInt64] = []
        cumulative.reserveCapacity(slotCount)
        var running: UInt64 = 0
        for index in 0..<slotCount {
            running &+= slots[index].load(ordering: .relaxed)
            cumulative.append(running)
        }
        return HistogramSnapshot(cumulativeCounts: cumulative, sum: sum, count: running)
    }
}

/// A histogram's state at scrape time.
struct HistogramSnapshot {
    var cumulativeCounts: [UInt64]
    var sum: Double
    var count: UInt64
}
