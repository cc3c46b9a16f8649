#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import WhisperBench

struct ProcTextTests {
    @Test func cpuTicks_sumsUtimeAndStime_evenWithParenthesesInComm() {
        let stat = "4242 (whisper (server) x) S 1 4242 4242 0 -1 4194560 1000 0 0 0 1234 567 0 0 20 0 4 0 900 123456 789 18446744073709551615"
        #expect(ProcText.cpuTicks(stat: stat) == 1_801)
        #expect(ProcText.cpuTicks(stat: "4242 (short) S 1 2") == nil)
        #expect(ProcText.cpuTicks(stat: "no parenthesis") == nil)
    }

    @Test func residentBytes_readsVmRSSInKilobytes() throws {
        let status = "Name:\twhisper-server\nVmPeak:\t  500000 kB\nVmRSS:\t   35308 kB\nRssAnon:\t   20000 kB\n"
        // Unwrapped first: `#expect(optional == literal)` here compiles to a read of 9 bytes from
        // an 8-byte slot (swiftlang/swift#92469), which AddressSanitizer stops the suite on.
        let resident = try #require(ProcText.residentBytes(status: status))
        #expect(resident == 35_308 * 1024)
        #expect(ProcText.residentBytes(status: "Name:\tx\n") == nil)
    }

    @Test func ownProcess_isReadable() {
        let pid = getpid()
        #expect(ResourceProbe.residentBytes(pid: pid).map { $0 > 0 } == true)
        #expect(ResourceProbe(targets: ProbeTargets()).cpuSeconds(pid: pid) != nil)
        #expect(ResourceProbe.selfCPUSeconds() > 0)
    }
}
