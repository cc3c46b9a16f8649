import WhisperOps

/// `idle`: N authenticated connections held open and quiet; how many survive the hold (the
/// server's keep-alive Pings must be answered) and what they cost the server in memory.
public enum IdleScenario {
    public static func run(_ options: IdleOptions, connection: ConnectionOptions) async throws -> IdleResult {
        try options.validate()
        try FileDescriptorLimit.ensure(options.connections + FileDescriptorLimit.overhead)
        let rssBefore = options.serverPid.flatMap(ResourceProbe.residentBytes(pid:))
        let runtime = try BenchRuntime(options: connection)
        defer { runtime.shutdown() }
        let shardCount = runtime.loops.count
        let shards = await runtime.makeShards { IdleShard(context: $0) }

        let loginStart = MonotonicClock.now()
        let concurrency = max(1, connection.connectConcurrency / shardCount)
        let logins = LoginTally.merged(await gather(shards) { shard, done in
            let index = shard.context.loop.index
            let count = options.connections / shardCount + (index < options.connections % shardCount ? 1 : 0)
            shard.connect(count: count, concurrency: concurrency, completion: done)
        })
        let loginSeconds = Double(MonotonicClock.now() - loginStart) / 1e9

        try await RelayScenario.sleep(until: MonotonicClock.now() + MonotonicClock.nanoseconds(options.holdSeconds))
        let rssHolding = options.serverPid.flatMap(ResourceProbe.residentBytes(pid:))
        let statuses = await gather(shards) { shard, done in done(shard.status) }
        _ = await gather(shards) { shard, done in shard.closeAll { done(()) } }

        var ended = ErrorTally()
        for status in statuses { ended.merge(status.ended) }
        return IdleResult(options: options, logins: logins, loginSeconds: loginSeconds,
                          stayedOpen: statuses.reduce(0) { $0 + $1.open }, ended: ended,
                          pingsAnswered: statuses.reduce(0) { $0 + $1.pingsAnswered },
                          unexpectedFrames: statuses.reduce(0) { $0 + $1.unexpectedFrames },
                          rssBefore: rssBefore, rssHolding: rssHolding)
    }
}
