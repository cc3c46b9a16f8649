/// Error counts by label: protocol error codes (`RATE_LIMITED`), and the benchmark's own
/// labels for transport failures (`connect_failed`, `closed_by_server_1001`, …).
public struct ErrorTally: Sendable, Equatable {
    public private(set) var counts: [String: Int] = [:]

    public init() {}

    public var total: Int { counts.values.reduce(0, +) }
    public var isEmpty: Bool { counts.isEmpty }

    public mutating func add(_ label: String, count: Int = 1) {
        counts[label, default: 0] += count
    }

    public mutating func merge(_ other: ErrorTally) {
        for (label, count) in other.counts { add(label, count: count) }
    }

    /// Labels sorted, for stable output.
    public var sorted: [(label: String, count: Int)] {
        counts.sorted { $0.key < $1.key }.map { (label: $0.key, count: $0.value) }
    }
}
