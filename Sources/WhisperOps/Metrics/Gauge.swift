import Synchronization

/// A value that goes up and down (connections, queue sizes). Every update is one relaxed atomic
/// operation. Obtain from `MetricsRegistry.gauge` or `GaugeFamily.labels`.
public final class Gauge: Sendable {
    private let storage = Atomic<Int>(0)

    init() {}

    @inline(__always)
    public func increment(by amount: Int = 1) {
        storage.wrappingAdd(amount, ordering: .relaxed)
    }

    @inline(__always)
    public func decrement(by amount: Int = 1) {
        storage.wrappingSubtract(amount, ordering: .relaxed)
    }

    @inline(__always)
    public func set(_ value: Int) {
        storage.store(value, ordering: .relaxed)
    }

    public var value: Int { storage.load(ordering: .relaxed) }
}
