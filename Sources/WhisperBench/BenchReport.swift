/// What every scenario returns for printing: a human summary and one JSON object with every
/// number, plus whether the run met its correctness bar (no errors, nothing lost or doubled).
public struct BenchReport: Sendable {
    public var scenario: String
    public var passed: Bool
    public var summary: [String]
    public var json: ReportObject

    public init(scenario: String, passed: Bool, summary: [String], json: ReportObject) {
        self.scenario = scenario
        self.passed = passed
        self.summary = summary
        self.json = json
    }

    /// The JSON line, `scenario` and `passed` first.
    public var jsonLine: String {
        var object = ReportObject([("scenario", .string(scenario)), ("passed", .bool(passed))])
        for member in json.members { object.append(member.key, member.value) }
        return object.json
    }
}
