/// The login scenario's numbers.
public struct LoginResult: Sendable {
    public var options: LoginOptions
    public var registrations: LoginTally
    public var registrationSeconds: Double
    public var recoveries: LoginTally
    public var recoverySeconds: Double
    public var unexpectedEnds: ErrorTally

    public var registrationsPerSecond: Double { Double(registrations.succeeded) / max(registrationSeconds, 1e-9) }
    public var recoveriesPerSecond: Double { Double(recoveries.succeeded) / max(recoverySeconds, 1e-9) }

    public var errors: ErrorTally {
        var all = registrations.failures
        all.merge(recoveries.failures)
        all.merge(unexpectedEnds)
        return all
    }

    public var passed: Bool {
        errors.isEmpty && registrations.succeeded == options.logins && recoveries.succeeded == options.logins
    }

    public var report: BenchReport {
        let summary = [
            "login: \(options.logins) registrations then \(options.logins) recovery logins, \(options.concurrency) in flight, one connection each",
            "  registrations  \(registrations.succeeded) in \(ReportFormat.fixed(registrationSeconds, digits: 2)) s (\(ReportFormat.rate(registrationsPerSecond))/s); \(registrations.latencySummary.line)",
            "  recoveries     \(recoveries.succeeded) in \(ReportFormat.fixed(recoverySeconds, digits: 2)) s (\(ReportFormat.rate(recoveriesPerSecond))/s); \(recoveries.latencySummary.line)",
            "  errors: \(errors.line)",
        ]
        let json = ReportObject([
            ("logins", .int(options.logins)), ("concurrency", .int(options.concurrency)),
            ("registrations", .int(registrations.succeeded)), ("registration_s", .double(registrationSeconds)),
            ("registrations_per_s", .double(registrationsPerSecond)),
            ("registration_latency", .object(registrations.latencySummary.report)),
            ("recoveries", .int(recoveries.succeeded)), ("recovery_s", .double(recoverySeconds)),
            ("recoveries_per_s", .double(recoveriesPerSecond)),
            ("recovery_latency", .object(recoveries.latencySummary.report)),
            ("errors", .object(errors.report)),
        ])
        return BenchReport(scenario: "login", passed: passed, summary: summary, json: json)
    }
}
