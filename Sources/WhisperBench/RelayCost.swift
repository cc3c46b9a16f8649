/// What a relayed message costs, from two `ResourceSample`s around the steady-state window.
///
/// A relayed message is a send, its ack, its live delivery and its receipt; it is counted
/// when the sender gets `message_delivered`. The server times every 16th Ed25519 verify in
/// thread CPU time, so Δsum/Δcount is the mean verify, and
///
///     R       = server CPU per relayed message / mean verify
///     R_total = (server + Redis) CPU per relayed message / mean verify
///
/// say how many signature checks' worth of CPU the whole relay path costs.
public struct RelayCost: Sendable, Equatable {
    public var windowSeconds: Double
    public var cores: Int
    public var relayedMessages: Int
    public var serverCPUSeconds: Double?
    /// Each Redis process's CPU over the window (one, or a cluster's primaries).
    public var redisShardCPUSeconds: [Double]?
    public var benchCPUSeconds: Double
    public var meanVerifyMicros: Double?
    public var verifySamples: Double?
    public var metricsError: String?

    init(start: ResourceSample, end: ResourceSample, windowSeconds: Double, relayedMessages: Int, cores: Int) {
        func delta(_ a: Double?, _ b: Double?) -> Double? {
            guard let a, let b else { return nil }
            return max(0, b - a)
        }
        self.windowSeconds = windowSeconds
        self.cores = cores
        self.relayedMessages = relayedMessages
        serverCPUSeconds = delta(start.serverCPUSeconds, end.serverCPUSeconds)
        if let before = start.redisCPUSeconds, let after = end.redisCPUSeconds, before.count == after.count {
            redisShardCPUSeconds = zip(before, after).map { max(0, $1 - $0) }
        }
        benchCPUSeconds = max(0, end.benchCPUSeconds - start.benchCPUSeconds)
        let verifySum = delta(start.verifySecondsSum, end.verifySecondsSum)
        let verifyCount = delta(start.verifyCount, end.verifyCount)
        verifySamples = verifyCount
        if let verifySum, let verifyCount, verifyCount > 0 { meanVerifyMicros = verifySum / verifyCount * 1e6 }
        metricsError = end.metricsError ?? start.metricsError
    }

    /// The Redis processes' CPU, summed.
    public var redisCPUSeconds: Double? { redisShardCPUSeconds.map { $0.reduce(0, +) } }

    /// How far the busiest or idlest shard is from an even share: max |shard − mean| / mean
    /// (0 = even); nil for one Redis or no CPU.
    public var redisShardSpread: Double? {
        guard let shards = redisShardCPUSeconds, shards.count > 1 else { return nil }
        let mean = shards.reduce(0, +) / Double(shards.count)
        guard mean > 0 else { return nil }
        return shards.map { abs($0 - mean) }.max().map { $0 / mean }
    }

    public var serverMicrosPerMessage: Double? {
        guard let serverCPUSeconds, relayedMessages > 0 else { return nil }
        return serverCPUSeconds / Double(relayedMessages) * 1e6
    }

    public var redisMicrosPerMessage: Double? {
        guard let redisCPUSeconds, relayedMessages > 0 else { return nil }
        return redisCPUSeconds / Double(relayedMessages) * 1e6
    }

    public var ratio: Double? {
        guard let perMessage = serverMicrosPerMessage, let meanVerifyMicros, meanVerifyMicros > 0 else { return nil }
        return perMessage / meanVerifyMicros
    }

    public var ratioTotal: Double? {
        guard let server = serverMicrosPerMessage, let redis = redisMicrosPerMessage,
              let meanVerifyMicros, meanVerifyMicros > 0 else { return nil }
        return (server + redis) / meanVerifyMicros
    }

    /// (server + Redis + generator CPU) / (window × cores): near 1 means the machine was the
    /// limit, not the server's design.
    public var coreUse: Double? {
        guard windowSeconds > 0, cores > 0 else { return nil }
        let used = (serverCPUSeconds ?? 0) + (redisCPUSeconds ?? 0) + benchCPUSeconds
        return used / (windowSeconds * Double(cores))
    }
}
