import WhisperOps

/// `login`: N registrations of new identities with a bounded number in flight, then N
/// recovery logins of the same identities on new devices.
public enum LoginScenario {
    public static func run(_ options: LoginOptions, connection: ConnectionOptions) async throws -> LoginResult {
        try options.validate()
        // Closing sockets linger a little past their login, hence the slack.
        try FileDescriptorLimit.ensure(2 * options.concurrency + FileDescriptorLimit.overhead)
        let runtime = try BenchRuntime(options: connection)
        defer { runtime.shutdown() }
        let shardCount = runtime.loops.count
        let shards = await runtime.makeShards { LoginShard(context: $0) }
        let concurrency = max(1, options.concurrency / shardCount)

        _ = await gather(shards) { shard, done in
            let index = shard.context.loop.index
            shard.prepareRegistrations(count: options.logins / shardCount + (index < options.logins % shardCount ? 1 : 0))
            done(())
        }
        var started = MonotonicClock.now()
        let registrations = LoginTally.merged(await gather(shards) { shard, done in
            shard.register(concurrency: concurrency, completion: done)
        })
        let registrationSeconds = Double(MonotonicClock.now() - started) / 1e9

        _ = await gather(shards) { shard, done in
            shard.prepareRecoveries()
            done(())
        }
        started = MonotonicClock.now()
        let recoveries = LoginTally.merged(await gather(shards) { shard, done in
            shard.recover(concurrency: concurrency, completion: done)
        })
        let recoverySeconds = Double(MonotonicClock.now() - started) / 1e9
        _ = await gather(shards) { shard, done in shard.closeAll { done(()) } }
        var ended = ErrorTally()
        for tally in await gather(shards, { shard, done in done(shard.unexpectedEnds) }) { ended.merge(tally) }
        return LoginResult(options: options, registrations: registrations, registrationSeconds: registrationSeconds,
                           recoveries: recoveries, recoverySeconds: recoverySeconds, unexpectedEnds: ended)
    }
}
