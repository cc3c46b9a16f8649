/// A counter with labels, e.g. `whisper_errors_total{code}`.
public final class CounterFamily: Sendable {
    let children: LabelledChildren<Counter>

    init(labelNames: [String]) {
        children = LabelledChildren(labelNames: labelNames) { Counter() }
    }

    public var labelNames: [String] { children.labelNames }

    /// The counter for these label values, in `labelNames` order. Cache the result on hot paths.
    public func labels(_ values: String...) -> Counter { children.child(values) }

    public func labels(_ values: [String]) -> Counter { children.child(values) }
}
