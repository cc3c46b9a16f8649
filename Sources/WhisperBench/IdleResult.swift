/// The idle scenario's numbers.
public struct IdleResult: Sendable {
    public var options: IdleOptions
    public var logins: LoginTally
    public var loginSeconds: Double
    /// Still open when the hold ended.
    public var stayedOpen: Int
    /// Connections that ended during the hold, by how.
    public var ended: ErrorTally
    public var pingsAnswered: Int
    public var unexpectedFrames: Int
    public var rssBefore: UInt64?
    public var rssHolding: UInt64?

    public var loggedIn: Int { logins.succeeded }
    public var passed: Bool {
        loggedIn == options.connections && stayedOpen == options.connections && ended.isEmpty && unexpectedFrames == 0
    }

    /// (RSS while holding − RSS before) / connections held.
    public var rssPerConnection: Double? {
        guard let rssBefore, let rssHolding, loggedIn > 0 else { return nil }
        return (Double(rssHolding) - Double(rssBefore)) / Double(loggedIn)
    }

    public var report: BenchReport {
        func bytes(_ value: UInt64?) -> String { value.map { ReportFormat.bytes(Double($0)) } ?? "n/a" }
        var summary = [
            "idle: \(options.connections) connections, hold \(ReportFormat.rate(options.holdSeconds)) s",
            "  logged in \(loggedIn) in \(ReportFormat.fixed(loginSeconds, digits: 2)) s (\(ReportFormat.rate(Double(loggedIn) / max(loginSeconds, 1e-9))) logins/s); login \(logins.latencySummary.line)",
            "  stayed open \(stayedOpen) of \(options.connections); server pings answered \(pingsAnswered)",
            "  ended during hold: \(ended.line); login failures: \(logins.failures.line)",
        ]
        if options.serverPid != nil {
            summary.append("  server RSS before \(bytes(rssBefore)), holding \(bytes(rssHolding)), per connection \(rssPerConnection.map { ReportFormat.bytes($0) } ?? "n/a")")
        }
        let json = ReportObject([
            ("connections", .int(options.connections)), ("hold_s", .double(options.holdSeconds)),
            ("logged_in", .int(loggedIn)), ("login_s", .double(loginSeconds)),
            ("logins_per_s", .double(Double(loggedIn) / max(loginSeconds, 1e-9))),
            ("login_latency", .object(logins.latencySummary.report)),
            ("stayed_open", .int(stayedOpen)), ("pings_answered", .int(pingsAnswered)),
            ("unexpected_frames", .int(unexpectedFrames)),
            ("ended", .object(ended.report)), ("errors", .object(logins.failures.report)),
            ("server_rss_before_bytes", rssBefore.map { .int(Int(clamping: $0)) } ?? .null),
            ("server_rss_holding_bytes", rssHolding.map { .int(Int(clamping: $0)) } ?? .null),
            ("server_rss_per_connection_bytes", rssPerConnection.map { .double($0) } ?? .null),
        ])
        return BenchReport(scenario: "idle", passed: passed, summary: summary, json: json)
    }
}
