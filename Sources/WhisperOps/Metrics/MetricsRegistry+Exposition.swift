extension MetricsRegistry {
    /// Every metric in Prometheus text format 0.0.4, families sorted by name and series by label
    /// values, so two scrapes of the same state are byte-identical. Collectors run here, outside
    /// the registry lock.
    public func exposition() -> String {
        let (entries, collectors) = state.withLock { ($0.entries, $0.collectors) }
        var families: [(name: String, render: (inout ExpositionWriter) -> Void)] = []
        for (name, entry) in entries {
            families.append((name, { writer in Self.write(name: name, entry: entry, to: &writer) }))
        }
        for collector in collectors {
            for metric in collector.collect() {
                families.append((metric.name, { writer in
                    writer.header(name: metric.name, help: metric.help, type: metric.kind.rawValue)
                    writer.sample(metric.name, labelNames: [], values: [],
                                  value: ExpositionWriter.format(metric.value))
                }))
            }
        }
        var writer = ExpositionWriter()
        for family in families.sorted(by: { $0.name < $1.name }) {
            family.render(&writer)
        }
        return writer.text
    }

    private static func write(name: String, entry: Entry, to writer: inout ExpositionWriter) {
        switch entry.family {
        case .counter(let family):
            writer.header(name: name, help: entry.help, type: "counter")
            for (values, counter) in family.children.sorted() {
                writer.sample(name, labelNames: family.labelNames, values: values, value: String(counter.value))
            }
        case .gauge(let family):
            writer.header(name: name, help: entry.help, type: "gauge")
            for (values, gauge) in family.children.sorted() {
                writer.sample(name, labelNames: family.labelNames, values: values, value: String(gauge.value))
            }
        case .histogram(let family):
            writer.header(name: name, help: entry.help, type: "histogram")
            for (values, histogram) in family.children.sorted() {
                let snapshot = histogram.snapshot()
                let bounds = family.upperBounds.map(ExpositionWriter.format) + ["+Inf"]
                for (bound, count) in zip(bounds, snapshot.cumulativeCounts) {
                    writer.sample(name + "_bucket", labelNames: family.labelNames, values: values,
                                  extra: ("le", bound), value: String(count))
                }
                writer.sample(name + "_sum", labelNames: family.labelNames, values: values,
                              value: ExpositionWriter.format(snapshot.sum))
                writer.sample(name + "_count", labelNames: family.labelNames, values: values,
                              value: String(snapshot.count))
            }
        }
    }
}
