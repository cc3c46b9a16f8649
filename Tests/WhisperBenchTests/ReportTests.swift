import Testing
@testable import WhisperBench

struct ReportTests {
    @Test func json_keepsOrder_roundsDoubles_andNullsNonFinite() {
        let object = ReportObject([
            ("b", .int(2)), ("a", .double(1.23456)), ("nan", .double(.nan)), ("s", .string("q\"x")),
            ("nested", .object(ReportObject([("ok", .bool(true)), ("none", .null)]))),
        ])
        #expect(object.json == #"{"b":2,"a":1.235,"nan":null,"s":"q\"x","nested":{"ok":true,"none":null}}"#)
    }

    @Test func jsonLine_startsWithScenarioAndVerdict() {
        let report = BenchReport(scenario: "drain", passed: false, summary: [], json: ReportObject([("x", .int(1))]))
        #expect(report.jsonLine == #"{"scenario":"drain","passed":false,"x":1}"#)
    }

    @Test func fixed_formatsWithoutFoundation() {
        #expect(ReportFormat.fixed(3.14159, digits: 2) == "3.14")
        #expect(ReportFormat.fixed(-0.005, digits: 2) == "-0.01")
        #expect(ReportFormat.fixed(2, digits: 0) == "2")
        #expect(ReportFormat.fixed(0.05, digits: 3) == "0.050")
        #expect(ReportFormat.fixed(.infinity, digits: 1) == "n/a")
        #expect(ReportFormat.rate(12_345.6) == "12346")
        #expect(ReportFormat.bytes(3 * 1_048_576) == "3.0 MiB")
    }

    @Test func errorTally_mergesAndSorts() {
        var a = ErrorTally(), b = ErrorTally()
        a.add("RATE_LIMITED")
        b.add("AUTH_FAILED", count: 2)
        b.add("RATE_LIMITED")
        a.merge(b)
        #expect(a.total == 4)
        #expect(a.line == "AUTH_FAILED 2, RATE_LIMITED 2")
        #expect(a.report.json == #"{"AUTH_FAILED":2,"RATE_LIMITED":2}"#)
    }
}
