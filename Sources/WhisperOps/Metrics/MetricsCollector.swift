/// A source of metrics computed at scrape time (process statistics, queue depths read from a
/// store). `collect` runs on the scraping thread, outside the registry's lock.
public protocol MetricsCollector: Sendable {
    func collect() -> [CollectedMetric]
}

/// One unlabelled sample from a collector.
public struct CollectedMetric: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case counter
        case gauge
    }

    public var name: String
    public var help: String
    public var kind: Kind
    public var value: Double

    public init(name: String, help: String, kind: Kind, value: Double) {
        self.name = name
        self.help = help
        self.kind = kind
        self.value = value
    }
}
