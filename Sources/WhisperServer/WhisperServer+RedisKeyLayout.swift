import Foundation
import WhisperOps
import WhisperRuntime
import WhisperStorage
import WhisperStores

/// The Redis key layout (`RedisKeyLayout`) from the command line: checked before serving,
/// upgraded by `whisper-server upgrade-redis` (docs/operations.md "Upgrading to key layout 2").
extension WhisperServer {
    /// Before serving: a Redis with no data of this prefix gets the layout marker; one with
    /// layout-1 data and no marker is refused (`RedisKeyLayoutError.layout1`).
    public static func checkRedisKeyLayout(config: ServerConfig, log: Log) async throws {
        try await withRedis(config, log: log) { redis in try await RedisKeyLayout.check(redis, prefix: config.redisPrefix) }
    }

    /// Renames every layout-1 key of the prefix (the nodes of the old release stopped).
    public static func upgradeRedisKeys(config: ServerConfig, log: Log) async throws -> RedisKeyUpgradeReport {
        let report = try await withRedis(config, log: log) { redis in
            try await RedisKeyLayout.upgrade(redis, prefix: config.redisPrefix)
        }
        log.info("redis_keys_upgraded", ["scanned": .int(report.scanned), "renamed": .int(report.renamed)])
        return report
    }

    /// A Redis client on a loop of its own for a one-off task, connected (or failing after the
    /// connect timeout), closed afterwards.
    private static func withRedis<T: Sendable>(_ config: ServerConfig, log: Log,
                                               _ body: @Sendable (RedisClient) async throws -> T) async throws -> T {
        let group = try EventLoopGroup(threads: 1)
        group.start()
        defer { group.shutdown() }
        let configuration = RedisConfiguration(endpoint: config.redis)
        let redis = RedisClient(configuration: configuration, loop: group.loops[0], log: storageLog(log))
        redis.start()
        defer { redis.close() }
        let deadline = Date().addingTimeInterval(Double(configuration.commandTimeoutMillis) / 1000)
        while !redis.isConnected {
            guard Date() < deadline else { throw RedisKeyLayoutError.redis(.disconnected) }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        return try await body(redis)
    }
}
