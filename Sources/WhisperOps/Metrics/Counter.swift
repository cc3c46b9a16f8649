import Synchronization

/// A monotonically increasing count. `increment` is one relaxed atomic add: safe and cheap from
/// any loop thread. Obtain from `MetricsRegistry.counter` or `CounterFamily.labels`.
public final class Counter: Sendable {
    private let storage = Atomic<UInt64>(0)

    init() {}

    @inline(__always)
    public func increment() {
        storage.wrappingAdd(1, ordering: .relaxed)
    }

    @inline(__always)
    public func increment(by amount: UInt64) {
        storage.wrappingAdd(amount, ordering: .relaxed)
    }

    public var value: UInt64 { storage.load(ordering: .relaxed) }
}
