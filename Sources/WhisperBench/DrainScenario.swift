/// `drain`: Q messages queued for one offline user by a few senders (closed loop), then that
/// user logs back in and pages its queue out as fast as it can, one `fetch_pending` in flight.
public enum DrainScenario {
    public static func run(_ options: DrainOptions, connection: ConnectionOptions) async throws -> DrainResult {
        try options.validate()
        try FileDescriptorLimit.ensure(options.senders + 1 + FileDescriptorLimit.overhead)
        let runtime = try BenchRuntime(options: connection)
        defer { runtime.shutdown() }
        let shardCount = runtime.loops.count
        let run = UInt32.random(in: 1 ... .max)
        let loginConcurrency = max(1, connection.connectConcurrency / shardCount)
        let shards = await runtime.makeShards { context in
            let streams = stride(from: context.loop.index, to: options.senders, by: shardCount).map { $0 }
            return DrainShard(context: context, plan: DrainShard.Plan(
                run: run, streams: streams.map { UInt32($0) }, shares: streams.map { options.share(of: $0) },
                inFlight: options.inFlight, ciphertextBytes: options.ciphertextBytes, page: options.page,
                loginConcurrency: loginConcurrency, stallSeconds: options.stallSeconds))
        }
        func closeAll() async { _ = await gather(shards) { shard, done in shard.closeAll { done(()) } } }

        let registered: Result<String, LoginFailure> = await shards[0].run { shard, done in
            shard.registerRecipient(completion: done)
        }
        guard case .success(let recipientId) = registered else {
            await closeAll()
            throw BenchError.setup("drain: the recipient could not log in")
        }
        let logins = LoginTally.merged(await gather(shards) { shard, done in
            shard.connectSenders(recipientId: recipientId, completion: done)
        })
        guard logins.failures.isEmpty else {
            await closeAll()
            throw BenchError.setup("drain: \(logins.failures.total) sender logins failed: \(logins.failures.line)")
        }
        let presigned = await gather(shards) { shard, done in done(shard.presign()) }.reduce(0, +)
        let fill = DrainFill.merged(await gather(shards) { shard, done in shard.fillQueue(completion: done) })
        let fetch: DrainFetch = await shards[0].run { shard, done in shard.drain(completion: done) }
        await closeAll()
        return DrainResult(options: options, presigned: presigned, fill: fill, fetch: fetch)
    }
}
