/// A gauge with labels.
public final class GaugeFamily: Sendable {
    let children: LabelledChildren<Gauge>

    init(labelNames: [String]) {
        children = LabelledChildren(labelNames: labelNames) { Gauge() }
    }

    public var labelNames: [String] { children.labelNames }

    /// The gauge for these label values, in `labelNames` order. Cache the result on hot paths.
    public func labels(_ values: String...) -> Gauge { children.child(values) }

    public func labels(_ values: [String]) -> Gauge { children.child(values) }
}
