import Testing
@testable import WhisperBench

struct RelayCostTests {
    @Test func ratios_followFromTheDeltas() {
        let start = ResourceSample(serverCPUSeconds: 10, redisCPUSeconds: 5, benchCPUSeconds: 1,
                                   verifySecondsSum: 0.5, verifyCount: 10_000)
        let end = ResourceSample(serverCPUSeconds: 14, redisCPUSeconds: 6, benchCPUSeconds: 2,
                                 verifySecondsSum: 0.55, verifyCount: 11_000)
        let cost = RelayCost(start: start, end: end, windowSeconds: 10, relayedMessages: 20_000, cores: 2)
        #expect(cost.serverMicrosPerMessage == 200)
        #expect(cost.redisMicrosPerMessage == 50)
        #expect(abs((cost.meanVerifyMicros ?? 0) - 50) < 1e-9)
        #expect(abs((cost.ratio ?? 0) - 4) < 1e-9)
        #expect(abs((cost.ratioTotal ?? 0) - 5) < 1e-9)
        #expect(abs((cost.coreUse ?? 0) - 0.3) < 1e-9)
    }

    @Test func missingInputs_leaveTheRatiosOut() {
        let sample = ResourceSample(benchCPUSeconds: 1)
        let cost = RelayCost(start: sample, end: sample, windowSeconds: 10, relayedMessages: 0, cores: 2)
        #expect(cost.ratio == nil && cost.ratioTotal == nil && cost.serverMicrosPerMessage == nil)
        #expect(cost.coreUse == 0)
    }
}
