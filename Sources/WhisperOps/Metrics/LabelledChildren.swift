import Synchronization

/// The children of a labelled metric family, keyed by label values. Lookup takes a lock, so
/// callers fetch a child once and cache it (`let live = delivered.labels("live")`); updates on the
/// child are lock-free.
///
/// Cardinality is capped: past `maxChildren` distinct label sets, further new sets all share one
/// child whose values are `"_overflow"`, so an unexpected label source cannot exhaust memory.
final class LabelledChildren<Child: AnyObject & Sendable>: Sendable {
    let labelNames: [String]
    private let make: @Sendable () -> Child
    private let children = Mutex<[[String]: Child]>([:])
    private let maxChildren: Int

    static var overflowValue: String { "_overflow" }

    init(labelNames: [String], maxChildren: Int = 10_000, make: @escaping @Sendable () -> Child) {
        self.labelNames = labelNames
        self.maxChildren = maxChildren
        self.make = make
    }

    /// The child for `values`, created on first use. A wrong number of values is a programming
    /// error: asserted in debug builds, padded with "" or truncated in release builds.
    func child(_ values: [String]) -> Child {
        var key = values
        if key.count != labelNames.count {
            assertionFailure("expected \(labelNames.count) label values for \(labelNames), got \(values.count)")
            key = Array((values + Array(repeating: "", count: labelNames.count)).prefix(labelNames.count))
        }
        return children.withLock { table in
            if let existing = table[key] { return existing }
            if table.count >= maxChildren {
                key = Array(repeating: Self.overflowValue, count: labelNames.count)
                if let overflow = table[key] { return overflow }
            }
            let created = make()
            table[key] = created
            return created
        }
    }

    /// All children, sorted by label values for stable exposition.
    func sorted() -> [(values: [String], child: Child)] {
        let entries = children.withLock { table in table.map { (values: $0.key, child: $0.value) } }
        return entries.sorted { $0.values.lexicographicallyPrecedes($1.values) }
    }
}
