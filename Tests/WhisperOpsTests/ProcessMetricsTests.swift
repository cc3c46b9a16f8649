import Glibc
import Testing
@testable import WhisperOps

@Suite struct ProcessMetricsTests {
    static let statFixture = "4242 (whisper (srv) x) S 1 4242 4242 0 -1 4194560 1234 0 0 0 250 50 0 0 20 0 "
        + "9 0 123456 1073741824 2560 18446744073709551615 1 1 0 0 0 0 0 4096 17642 0 0 0 17 1 0 0 0 0 0\n"

    @Test func processStat_countsFieldsAfterTheLastParenthesis() {
        #expect(ProcStatParser.processStat(Self.statFixture) == ProcStatParser.ProcessStat(
            userTicks: 250, systemTicks: 50, startTicks: 123_456, virtualBytes: 1_073_741_824, residentPages: 2560))
        #expect(ProcStatParser.processStat("12 (short) S 1 2") == nil)
    }

    @Test func bootTime_andMaxOpenFiles_parseTheirLines() {
        #expect(ProcStatParser.bootTime(systemStat: "cpu  1 2 3\nbtime 1700000000\nprocesses 5\n") == 1_700_000_000)
        let limits = """
            Limit                     Soft Limit           Hard Limit           Units
            Max processes             63457                63457                processes
            Max open files            1024                 524288               files
            """
        #expect(ProcStatParser.maxOpenFiles(limits: limits) == 1024)
        #expect(ProcStatParser.maxOpenFiles(limits: "Max open files  unlimited  unlimited  files") == nil)
    }

    @Test func collect_reportsPlausibleValuesForThisProcess() throws {
        let metrics = ProcessMetrics().collect()
        let values = Dictionary(uniqueKeysWithValues: metrics.map { ($0.name, $0.value) })
        let now = Double(WallTime.now().secondsSinceEpoch)
        let start = try #require(values["process_start_time_seconds"])
        #expect(start > now - 86_400 * 365 && start <= now + 1)
        #expect(try #require(values["process_cpu_seconds_total"]) >= 0)
        #expect(try #require(values["process_resident_memory_bytes"]) > 1_000_000)
        #expect(try #require(values["process_virtual_memory_bytes"]) >= values["process_resident_memory_bytes"] ?? 0)
        let openFDs = try #require(values["process_open_fds"])
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        #expect(openFDs >= 3 && openFDs <= Double(limit.rlim_cur))
        #expect(values["process_max_fds"] == Double(limit.rlim_cur))
    }

    @Test func openFDs_followDescriptorsThisProcessOpens() throws {
        func openFDs() -> Double? { ProcessMetrics().collect().first { $0.name == "process_open_fds" }?.value }
        let before = try #require(openFDs())
        var opened: [Int32] = []
        for _ in 0..<50 {
            var fds: [Int32] = [0, 0]
            if pipe(&fds) == 0 { opened += fds }
        }
        let during = try #require(openFDs())
        for fd in opened { close(fd) }
        #expect(opened.count == 100)
        // Tests run in parallel and open and close a few descriptors of their own: allow slack.
        #expect(during >= before + 90)
    }
}
