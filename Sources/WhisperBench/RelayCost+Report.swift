extension RelayCost {
    var report: ReportObject {
        func value(_ number: Double?) -> ReportValue { number.map { .double($0) } ?? .null }
        return ReportObject([
            ("relayed_messages", .int(relayedMessages)), ("window_s", .double(windowSeconds)), ("cores", .int(cores)),
            ("server_cpu_s", value(serverCPUSeconds)), ("redis_cpu_s", value(redisCPUSeconds)),
            ("redis_shard_cpu_s", redisShardCPUSeconds.map { .array($0.map { .double($0) }) } ?? .null),
            ("redis_shard_spread", value(redisShardSpread)),
            ("bench_cpu_s", .double(benchCPUSeconds)),
            ("server_cpu_per_msg_us", value(serverMicrosPerMessage)), ("redis_cpu_per_msg_us", value(redisMicrosPerMessage)),
            ("mean_verify_us", value(meanVerifyMicros)), ("verify_samples", value(verifySamples)),
            ("R", value(ratio)), ("R_total", value(ratioTotal)), ("core_use", value(coreUse)),
            ("metrics_error", metricsError.map { .string($0) } ?? .null),
        ])
    }

    var summaryLines: [String] {
        func text(_ number: Double?, _ digits: Int = 2) -> String { number.map { ReportFormat.fixed($0, digits: digits) } ?? "n/a" }
        func seconds(_ number: Double?) -> String { number.map { ReportFormat.fixed($0, digits: 2) + " s" } ?? "n/a" }
        func micros(_ number: Double?) -> String { number.map { ReportFormat.fixed($0, digits: 1) + " µs" } ?? "n/a" }
        var lines = [
            "  cost over \(relayedMessages) relayed messages (send + ack + live delivery + receipt) in \(text(windowSeconds, 1)) s:",
            "    CPU: server \(seconds(serverCPUSeconds)), redis \(seconds(redisCPUSeconds)), bench \(seconds(benchCPUSeconds)); core use \(text(coreUse.map { $0 * 100 }, 0)) % of \(cores) cores",
            "    server CPU per message \(micros(serverMicrosPerMessage)), redis \(micros(redisMicrosPerMessage)), mean verify \(micros(meanVerifyMicros)) (\(text(verifySamples, 0)) samples)",
            "    R = \(text(ratio))   R_total = \(text(ratioTotal))",
        ]
        if let shards = redisShardCPUSeconds, shards.count > 1 {
            lines.append("    redis per shard: \(shards.map { ReportFormat.fixed($0, digits: 2) + " s" }.joined(separator: ", ")); spread \(text(redisShardSpread.map { $0 * 100 }, 1)) % from even")
        }
        if let metricsError { lines.append("    metrics: \(metricsError)") }
        return lines
    }
}
