import Synchronization
import WhisperHTTP
import WhisperOps
import WhisperRuntime
import WhisperServices
import WhisperStorage
import WhisperWebSocket

/// State every loop reads: configuration, routes, the gateway, the PostgreSQL pool, the
/// node id and the drain flag. `Sodium.initialize()` must have run before `init`. Immutable after start-up except for atomics.
final class ServerShared: Sendable {
    let config: ServerConfig
    let log: Log
    let metrics: ServerMetrics
    let postgres: PostgresPool?
    let migrator: Migrator?
    let gateway: Gateway
    let httpLimits: HTTPLimits
    let connectionLimits: ConnectionLimits
    let webSocketConfiguration: WebSocketConfiguration
    let httpRequestTimeoutNanos: UInt64
    let httpIdleTimeoutNanos: UInt64
    /// Random per process: names this node in revocation notices, so the socket that caused
    /// a revocation is not closed by it.
    let nodeId: String
    let redisKeys: RedisKeys
    /// Hands routed frames to the loop holding the socket.
    let deliveryHub = DeliveryHub()
    private let publicRoutes: RouteTable
    private let adminRoutes: RouteTable
    private let draining = Atomic<Bool>(false)

    init(config: ServerConfig, log: Log, metrics: ServerMetrics, postgres: PostgresPool?, migrator: Migrator?) {
        self.config = config
        self.log = log
        self.metrics = metrics
        self.postgres = postgres
        self.migrator = migrator
        self.gateway = Gateway(echo: config.testEcho, metrics: metrics)
        self.httpLimits = HTTPLimits()
        self.connectionLimits = ConnectionLimits(maxOutputBytes: config.outputBufferLimitBytes)
        self.webSocketConfiguration = WebSocketConfiguration(
            maxMessageBytes: config.maxWSMessageBytes,
            pingInterval: .seconds(config.wsPingIntervalSeconds),
            idleTimeout: .seconds(config.wsIdleTimeoutSeconds),
            acceptsBinaryMessages: config.testEcho)
        self.httpRequestTimeoutNanos = UInt64(config.httpRequestTimeoutSeconds) * 1_000_000_000
        self.httpIdleTimeoutNanos = 60 * 1_000_000_000
        self.nodeId = SodiumRandom().hex(8)
        self.redisKeys = RedisKeys(prefix: config.redisPrefix)
        self.publicRoutes = RouteTable.publicRoutes()
        self.adminRoutes = RouteTable.adminRoutes()
    }

    var isDraining: Bool { draining.load(ordering: .acquiring) }

    func beginDrain() { draining.store(true, ordering: .releasing) }

    func routes(for listener: ListenerKind) -> RouteTable {
        listener == .public ? publicRoutes : adminRoutes
    }

    /// Per-route body caps, decided from the head before any body byte is buffered.
    func bodyLimit(for head: HTTPRequestHead, listener: ListenerKind) -> Int {
        routes(for: listener).bodyLimit(method: head.method, path: head.path) ?? 0
    }
}
