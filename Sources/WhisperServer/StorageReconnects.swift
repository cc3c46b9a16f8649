import WhisperOps
import WhisperStorage

/// `whisper_redis_reconnects_total` and `whisper_postgres_reconnects_total`, read at each scrape
/// from the counts the links keep themselves (every loop's Redis client, the node's subscriber,
/// the PostgreSQL workers and loop sessions), so no reconnect path has to remember a metric.
struct StorageReconnects: MetricsCollector {
    let redis: [RedisClient]
    let subscriber: RedisSubscriber
    let postgres: PostgresPool?

    func collect() -> [CollectedMetric] {
        let redisTotal = redis.reduce(subscriber.reconnectCount) { $0 + $1.reconnectCount }
        var metrics = [CollectedMetric(name: "whisper_redis_reconnects_total",
                                       help: "Redis connections re-established after a failure.",
                                       kind: .counter, value: Double(redisTotal))]
        if let postgres {
            metrics.append(CollectedMetric(name: "whisper_postgres_reconnects_total",
                                           help: "PostgreSQL connections re-established after a failure.",
                                           kind: .counter, value: Double(postgres.reconnectCount)))
        }
        return metrics
    }
}
