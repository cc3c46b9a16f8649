import Testing
@testable import WhisperOps

@Suite struct CoreCountTests {
    @Test func allowedCPUs_countsRangesAndSingles() {
        #expect(CoreCount.allowedCPUs(status: "Name:\tx\nCpus_allowed_list:\t0-3,8,10-11\nMems: 0\n") == 7)
        #expect(CoreCount.allowedCPUs(status: "Cpus_allowed_list:\t0\n") == 1)
        #expect(CoreCount.allowedCPUs(status: "Name:\tx\n") == nil)
        #expect(CoreCount.allowedCPUs(status: "Cpus_allowed_list:\t3-1\n") == nil)
    }

    @Test func quotaCores_roundsUpAndIgnoresMax() {
        #expect(CoreCount.quotaCores(cpuMax: "200000 100000\n") == 2)
        #expect(CoreCount.quotaCores(cpuMax: "150000 100000\n") == 2)
        #expect(CoreCount.quotaCores(cpuMax: "50000 100000\n") == 1)
        #expect(CoreCount.quotaCores(cpuMax: "max 100000\n") == nil)
    }

    @Test func active_isAtLeastOne() {
        #expect(CoreCount.active() >= 1)
    }
}
