import Synchronization

/// The process's metrics, shared by every thread. Registration takes a lock (start-up);
/// updates on the returned `Counter`/`Gauge`/`Histogram` are lock-free.
///
/// Registering the same name again with the same type, labels and buckets returns the existing
/// metric; registering it differently, or with a name that is not a valid Prometheus name, is a
/// programming error and traps (start-up code, never reachable from peer input).
public final class MetricsRegistry: Sendable {
    /// The `Content-Type` of `exposition()`.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    enum Family {
        case counter(CounterFamily)
        case gauge(GaugeFamily)
        case histogram(HistogramFamily)
    }

    struct Entry {
        var help: String
        var family: Family
    }

    struct State {
        var entries: [String: Entry] = [:]
        var collectors: [any MetricsCollector] = []
    }

    let state = Mutex(State())

    public init() {}

    public func counter(_ name: String, help: String) -> Counter {
        counter(name, help: help, labelNames: []).labels([])
    }

    public func counter(_ name: String, help: String, labelNames: [String]) -> CounterFamily {
        register(name, help: help, labelNames: labelNames, make: .counter(CounterFamily(labelNames: labelNames))) {
            if case .counter(let family) = $0, family.labelNames == labelNames { return family }
            return nil
        }
    }

    public func gauge(_ name: String, help: String) -> Gauge {
        gauge(name, help: help, labelNames: []).labels([])
    }

    public func gauge(_ name: String, help: String, labelNames: [String]) -> GaugeFamily {
        register(name, help: help, labelNames: labelNames, make: .gauge(GaugeFamily(labelNames: labelNames))) {
            if case .gauge(let family) = $0, family.labelNames == labelNames { return family }
            return nil
        }
    }

    /// `buckets`: finite, strictly increasing upper bounds; `+Inf` is added implicitly.
    public func histogram(_ name: String, help: String, buckets: [Double]) -> Histogram {
        histogram(name, help: help, labelNames: [], buckets: buckets).labels([])
    }

    public func histogram(_ name: String, help: String, labelNames: [String], buckets: [Double]) -> HistogramFamily {
        precondition(buckets.allSatisfy(\.isFinite) && zip(buckets, buckets.dropFirst()).allSatisfy { $0 < $1 },
                     "histogram \(name): buckets must be finite and strictly increasing")
        precondition(!labelNames.contains("le"), "histogram \(name): label name le is reserved")
        let made = HistogramFamily(labelNames: labelNames, upperBounds: buckets)
        return register(name, help: help, labelNames: labelNames, make: .histogram(made)) {
            if case .histogram(let family) = $0, family.labelNames == labelNames, family.upperBounds == buckets {
                return family
            }
            return nil
        }
    }

    /// Adds a source of scrape-time metrics (e.g. `ProcessMetrics`).
    public func register(collector: any MetricsCollector) {
        state.withLock { $0.collectors.append(collector) }
    }

    private func register<F>(_ name: String, help: String, labelNames: [String], make: Family,
                             matching: (Family) -> F?) -> F {
        precondition(Self.isValidName(name, allowColon: true), "invalid metric name \(name)")
        precondition(labelNames.allSatisfy { Self.isValidName($0, allowColon: false) && !$0.hasPrefix("__") },
                     "invalid label names \(labelNames) for \(name)")
        precondition(Set(labelNames).count == labelNames.count, "duplicate label names for \(name)")
        return state.withLock { state in
            if let existing = state.entries[name] {
                guard let family = matching(existing.family) else {
                    preconditionFailure("metric \(name) registered twice with different type, labels or buckets")
                }
                return family
            }
            state.entries[name] = Entry(help: help, family: make)
            guard let family = matching(make) else { preconditionFailure("unreachable: family kind mismatch") }
            return family
        }
    }

    /// `[a-zA-Z_:][a-zA-Z0-9_:]*` for metric names; no colon in label names.
    static func isValidName(_ name: String, allowColon: Bool) -> Bool {
        guard let first = name.utf8.first else { return false }
        func isLetter(_ byte: UInt8) -> Bool {
            ((byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")) || byte == UInt8(ascii: "_")
                || (allowColon && byte == UInt8(ascii: ":"))
        }
        return isLetter(first)
            && name.utf8.allSatisfy { isLetter($0) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) }
    }
}
