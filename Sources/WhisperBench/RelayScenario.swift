#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import Foundation
import WhisperOps
import WhisperRuntime

/// `relay`: P pairs of logged-in phones; each sender sends signed messages to its peer, which
/// answers every `message_received` with a `delivery_receipt`; the sender expects
/// `message_accepted` and then `message_delivered`. Warm-up, a measured window, then a settle
/// and a `fetch_pending` sweep so that loss and duplicates are judged on everything.
public enum RelayScenario {
    public static func run(_ options: RelayOptions, connection: ConnectionOptions) async throws -> RelayResult {
        try options.validate()
        try FileDescriptorLimit.ensure(options.phones + FileDescriptorLimit.overhead)
        let runtime = try BenchRuntime(options: connection)
        defer { runtime.shutdown() }

        let shardCount = runtime.loops.count
        let run = UInt32.random(in: 1 ... .max)
        let loginConcurrency = max(1, connection.connectConcurrency / shardCount)
        let shards = await runtime.makeShards { context in
            let index = context.loop.index
            // A group's streams stay together on one shard: they share its sender.
            let streams: [UInt32]
            if let groups = options.groups {
                let perGroup = options.groupMembers - 1
                streams = stride(from: index, to: groups, by: shardCount).flatMap { group in
                    (group * perGroup..<(group + 1) * perGroup).map { UInt32($0) }
                }
            } else {
                streams = stride(from: index, to: options.pairs, by: shardCount).map { UInt32($0) }
            }
            let rate = options.rate.map { $0 * Double(streams.count) / Double(options.streams) }
            return RelayShard(context: context, plan: RelayShard.Plan(
                run: run, streams: streams, groupRecipients: options.groups.map { _ in options.groupMembers - 1 },
                inFlight: options.inFlight, rate: rate,
                ciphertextBytes: options.ciphertextBytes, loginConcurrency: loginConcurrency,
                recordsSeries: options.seriesPrefix != nil))
        }

        let logins = LoginTally.merged(await gather(shards) { shard, done in shard.connect(completion: done) })
        guard logins.failures.isEmpty else {
            _ = await gather(shards) { shard, done in shard.closeAll { done(()) } }
            throw BenchError.setup("relay: \(logins.failures.total) of \(logins.attempted) logins failed: \(logins.failures.line)")
        }
        if options.groups != nil {
            let failures = await gather(shards) { shard, done in shard.createGroups(completion: done) }.compactMap { $0 }
            guard failures.isEmpty else {
                _ = await gather(shards) { shard, done in shard.closeAll { done(()) } }
                throw BenchError.setup("group: group_create failed: \(failures.joined(separator: ", "))")
            }
        }
        var presigned = 0
        if options.presign {
            let perSender = options.presignPerSender
            presigned = await gather(shards) { shard, done in done(shard.presign(perSender: perSender)) }.reduce(0, +)
        }

        let window = RelayWindow.fromNow(warmupSeconds: options.warmupSeconds, durationSeconds: options.durationSeconds)
        let windowStartUnixMillis = window.windowStartUnixMillis
        _ = await gather(shards) { shard, done in
            shard.start(window)
            done(())
        }
        let probe = ResourceProbe(targets: options.probe)
        let measuring = options.probe.serverPid != nil || options.probe.admin != nil
        let cpuSeries = options.seriesPrefix.map { _ in CPUSeries(server: options.probe.serverPid, redis: options.probe.redisPids) }
        async let samples = measuring ? Self.samples(of: probe, at: [window.windowStart, window.windowEnd]) : []
        try await sleep(until: window.windowStart)
        cpuSeries?.start(origin: window.windowStart)
        try await sleep(until: window.windowEnd)
        cpuSeries?.stop()
        let taken = await samples

        let settled = await gather(shards) { shard, done in shard.settle(timeoutSeconds: options.settleTimeoutSeconds, completion: done) }
        _ = await gather(shards) { shard, done in shard.sweep { done(()) } }
        let total = RelayShardResult.merged(await gather(shards) { shard, done in done(shard.result()) })
        _ = await gather(shards) { shard, done in shard.closeAll { done(()) } }
        if let prefix = options.seriesPrefix {
            try Self.write(total.acceptSeries.csv, to: prefix + "-latency.csv")
            try Self.write(total.acceptLatency.percentileCSV, to: prefix + "-percentiles.csv")
            if let cpuSeries { try Self.write(cpuSeries.csv, to: prefix + "-cpu.csv") }
        }

        var cost: RelayCost?
        if taken.count == 2 {
            cost = RelayCost(start: taken[0], end: taken[1], windowSeconds: window.seconds,
                             relayedMessages: total.counters.deliveredInWindow, cores: options.cores ?? onlineCores())
        }
        return RelayResult(options: options, connection: connection, windowSeconds: window.seconds,
                           windowStartUnixMillis: windowStartUnixMillis, logins: logins,
                           presigned: presigned, total: total, settled: settled.allSatisfy { $0 }, cost: cost)
    }

    /// `probe` sampled at each deadline (MonotonicClock), on a thread of its own: the
    /// cooperative pool can be starved for seconds on a loaded machine, which once put both
    /// samples of a 2 s window after its end and left nothing between them.
    static func samples(of probe: ResourceProbe, at deadlines: [UInt64]) async -> [ResourceSample] {
        await withCheckedContinuation { continuation in
            Thread {
                var samples: [ResourceSample] = []
                for deadline in deadlines {
                    let now = MonotonicClock.now()
                    if deadline > now {
                        var pause = timespec(tv_sec: Int((deadline - now) / 1_000_000_000),
                                             tv_nsec: Int((deadline - now) % 1_000_000_000))
                        var left = timespec()
                        while nanosleep(&pause, &left) != 0 && errno == EINTR { pause = left }
                    }
                    samples.append(probe.sample())
                }
                continuation.resume(returning: samples)
            }.start()
        }
    }

    static func sleep(until deadline: UInt64) async throws {
        let now = MonotonicClock.now()
        if deadline > now { try await Task.sleep(nanoseconds: deadline - now) }
    }

    static func write(_ text: String, to path: String) throws {
        do {
            try text.write(toFile: path, atomically: true, encoding: .utf8)
        } catch {
            throw BenchError.setup("cannot write \(path): \(error)")
        }
    }

    static func onlineCores() -> Int {
        max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
    }
}
