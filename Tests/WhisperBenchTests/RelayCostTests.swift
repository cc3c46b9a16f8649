import Testing
@testable import WhisperBench

struct RelayCostTests {
    @Test func ratios_followFromTheDeltas() {
        let start = ResourceSample(serverCPUSeconds: 10, redisCPUSeconds: [5], benchCPUSeconds: 1,
                                   verifySecondsSum: 0.5, verifyCount: 10_000)
        let end = ResourceSample(serverCPUSeconds: 14, redisCPUSeconds: [6], benchCPUSeconds: 2,
                                 verifySecondsSum: 0.55, verifyCount: 11_000)
        let cost = RelayCost(start: start, end: end, windowSeconds: 10, relayedMessages: 20_000, cores: 2)
        #expect(cost.serverMicrosPerMessage == 200)
        #expect(cost.redisMicrosPerMessage == 50)
        #expect(abs((cost.meanVerifyMicros ?? 0) - 50) < 1e-9)
        #expect(abs((cost.ratio ?? 0) - 4) < 1e-9)
        #expect(abs((cost.ratioTotal ?? 0) - 5) < 1e-9)
        #expect(abs((cost.coreUse ?? 0) - 0.3) < 1e-9)
        #expect(cost.redisShardSpread == nil)
    }

    @Test func aClustersPrimaries_areSummed_andTheirSpreadIsTheWorstShardsDistanceFromEven() {
        let start = ResourceSample(serverCPUSeconds: 10, redisCPUSeconds: [1, 2, 3], benchCPUSeconds: 1)
        let end = ResourceSample(serverCPUSeconds: 14, redisCPUSeconds: [1.9, 3, 4.1], benchCPUSeconds: 2)
        let cost = RelayCost(start: start, end: end, windowSeconds: 10, relayedMessages: 20_000, cores: 2)
        #expect(abs((cost.redisCPUSeconds ?? 0) - 3) < 1e-9)
        #expect(abs((cost.redisMicrosPerMessage ?? 0) - 150) < 1e-9)
        // Mean 1.0 s: the busiest shard is 0.1 above it, the idlest 0.1 below.
        #expect(abs((cost.redisShardSpread ?? 0) - 0.1) < 1e-9)
        // A shard that could not be read on one edge leaves Redis out rather than undercounting.
        let partial = RelayCost(start: start, end: ResourceSample(serverCPUSeconds: 14, redisCPUSeconds: [2, 3], benchCPUSeconds: 2),
                                windowSeconds: 10, relayedMessages: 20_000, cores: 2)
        #expect(partial.redisCPUSeconds == nil && partial.ratioTotal == nil)
    }

    @Test func missingInputs_leaveTheRatiosOut() {
        let sample = ResourceSample(benchCPUSeconds: 1)
        let cost = RelayCost(start: sample, end: sample, windowSeconds: 10, relayedMessages: 0, cores: 2)
        #expect(cost.ratio == nil && cost.ratioTotal == nil && cost.serverMicrosPerMessage == nil)
        #expect(cost.coreUse == 0)
    }
}
