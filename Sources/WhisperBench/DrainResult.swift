/// The drain scenario's numbers: how fast the queue filled, and how fast it paged out.
public struct DrainResult: Sendable {
    public var options: DrainOptions
    public var presigned: Int
    public var fill: DrainFill
    public var fetch: DrainFetch

    public var errors: ErrorTally {
        var all = fill.errors
        all.merge(fetch.errors)
        return all
    }

    public var passed: Bool {
        errors.isEmpty && !fill.stalled && fill.accepted == options.messages && fetch.unique == options.messages
            && fetch.messages == options.messages && fetch.duplicates == 0 && fetch.foreign == 0
    }

    public var drainPerSecond: Double { Double(fetch.messages) / max(fetch.seconds, 1e-9) }
    public var fillPerSecond: Double { Double(fill.accepted) / max(fill.seconds, 1e-9) }

    public var report: BenchReport {
        let summary = [
            "drain: \(options.messages) messages from \(options.senders) senders to one offline user, pages of \(options.page)",
            "  fill   \(fill.accepted) accepted in \(ReportFormat.fixed(fill.seconds, digits: 2)) s (\(ReportFormat.rate(fillPerSecond)) msg/s)\(fill.stalled ? " — STALLED" : "")",
            "  drain  \(fetch.messages) messages in \(fetch.pages) pages in \(ReportFormat.fixed(fetch.seconds, digits: 3)) s (\(ReportFormat.rate(drainPerSecond)) msg/s)",
            "  unique \(fetch.unique) of \(options.messages), duplicates \(fetch.duplicates), foreign \(fetch.foreign)",
            "  errors: \(errors.line)",
        ]
        let json = ReportObject([
            ("messages", .int(options.messages)), ("senders", .int(options.senders)), ("page", .int(options.page)),
            ("presigned", .int(presigned)),
            ("fill_accepted", .int(fill.accepted)), ("fill_s", .double(fill.seconds)),
            ("fill_per_s", .double(fillPerSecond)), ("fill_stalled", .bool(fill.stalled)),
            ("drained", .int(fetch.messages)), ("drain_unique", .int(fetch.unique)),
            ("duplicates", .int(fetch.duplicates)), ("foreign", .int(fetch.foreign)),
            ("pages", .int(fetch.pages)), ("drain_s", .double(fetch.seconds)), ("drain_per_s", .double(drainPerSecond)),
            ("errors", .object(errors.report)),
        ])
        return BenchReport(scenario: "drain", passed: passed, summary: summary, json: json)
    }
}
