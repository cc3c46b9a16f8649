/// A histogram with labels; every child has the same buckets.
public final class HistogramFamily: Sendable {
    let children: LabelledChildren<Histogram>
    public let upperBounds: [Double]

    init(labelNames: [String], upperBounds: [Double]) {
        self.upperBounds = upperBounds
        children = LabelledChildren(labelNames: labelNames) { Histogram(upperBounds: upperBounds) }
    }

    public var labelNames: [String] { children.labelNames }

    /// The histogram for these label values, in `labelNames` order. Cache the result on hot paths.
    public func labels(_ values: String...) -> Histogram { children.child(values) }

    public func labels(_ values: [String]) -> Histogram { children.child(values) }
}
