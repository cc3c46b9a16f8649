import Synchronization
import WhisperHTTP
import WhisperOps
import WhisperProtocol
import WhisperRuntime
import WhisperServices
import WhisperStorage
import WhisperWebSocket
import WhisperStores

/// State every loop reads: configuration, the one `Limits`, routes, the gateway, the
/// PostgreSQL pool, the node id and the drain flag. `Sodium.initialize()` must have run
/// before `init`. Immutable after start-up except for atomics.
final class ServerShared: Sendable {
    let config: ServerConfig
    /// Every size, TTL and timeout (from `config`): the transport settings below are derived
    /// from it here, and the gateway, the services and the stores read it.
    let limits: Limits
    let log: Log
    let metrics: ServerMetrics
    let postgres: PostgresPool?
    let migrator: Migrator?
    let gateway: Gateway
    let httpLimits: HTTPLimits
    let connectionLimits: ConnectionLimits
    /// Open connections and new-connection rate per client address on the public listener,
    /// across every loop (`Limits.maxConnectionsPerIP`, `Limits.connectionRatePerIP`).
    let publicPeers: PeerConnectionTable
    /// PROXY protocol v2 on the public listener (`WHISPER_PROXY_PROTOCOL`); nil = off.
    let publicProxyProtocol: ProxyProtocolPolicy?
    let webSocketConfiguration: WebSocketConfiguration
    let httpRequestTimeoutNanos: UInt64
    let httpIdleTimeoutNanos: UInt64
    /// Random per process: names this node in revocation notices, so the socket that caused
    /// a revocation is not closed by it.
    let nodeId: String
    let redisKeys: RedisKeys
    /// Hands routed frames to the loop holding the socket.
    let deliveryHub = DeliveryHub()
    /// The push providers' senders; nil when none is configured (docs/protocol.md "Push wake-ups").
    let push: PushSenders?
    /// `/ready`'s node-wide cache, canary and heartbeat state.
    let readinessProbe = ReadinessProbe()
    private let publicRoutes: RouteTable
    private let adminRoutes: RouteTable
    private let draining = Atomic<Bool>(false)
    private let closing = Atomic<Bool>(false)

    init(config: ServerConfig, log: Log, metrics: ServerMetrics, postgres: PostgresPool?, migrator: Migrator?,
         push: PushSenders?) {
        let limits = config.limits
        self.config = config
        self.limits = limits
        self.log = log
        self.metrics = metrics
        self.postgres = postgres
        self.migrator = migrator
        self.push = push
        self.gateway = Gateway(echo: config.testEcho, limits: limits, metrics: metrics)
        self.httpLimits = HTTPLimits(maxHeaderBytes: limits.maxHTTPHeaderBytes, maxHeaderCount: limits.maxHTTPHeaderCount,
                                     defaultMaxBodyBytes: limits.maxHTTPBodyBytes)
        self.connectionLimits = ConnectionLimits(maxOutputBytes: limits.outputBufferLimitBytes)
        let refusedPerIP = metrics.base.connectionsRefused.labels(PeerConnectionTable.Refusal.concurrent.rawValue)
        let refusedPerIPRate = metrics.base.connectionsRefused.labels(PeerConnectionTable.Refusal.rate.rawValue)
        let rate = limits.connectionRatePerIP == 0 ? nil
            : PeerRateLimiter(perSecond: limits.connectionRatePerIP, burst: limits.connectionBurstPerIP)
        self.publicPeers = PeerConnectionTable(limitPerPeer: limits.maxConnectionsPerIP, rate: rate) { refusal in
            (refusal == .rate ? refusedPerIPRate : refusedPerIP).increment()
        }
        self.publicProxyProtocol = config.proxyProtocol.map {
            ProxyProtocolPolicy(trustedSources: $0.trustedSources, maxHeaderBytes: limits.maxProxyHeaderBytes)
        }
        self.webSocketConfiguration = WebSocketConfiguration(
            maxMessageBytes: limits.maxWebSocketMessageBytes,
            pingInterval: .seconds(limits.webSocketPingIntervalSeconds),
            idleTimeout: .seconds(limits.webSocketIdleTimeoutSeconds),
            closeTimeout: .seconds(limits.webSocketCloseTimeoutSeconds),
            acceptsBinaryMessages: config.testEcho)
        self.httpRequestTimeoutNanos = UInt64(limits.httpRequestTimeoutSeconds) * 1_000_000_000
        self.httpIdleTimeoutNanos = UInt64(limits.httpIdleTimeoutSeconds) * 1_000_000_000
        self.nodeId = SodiumRandom().hex(8)
        self.redisKeys = RedisKeys(prefix: config.redisPrefix)
        self.publicRoutes = RouteTable.publicRoutes(limits: limits)
        self.adminRoutes = RouteTable.adminRoutes(limits: limits)
    }

    var isDraining: Bool { draining.load(ordering: .acquiring) }

    /// SIGTERM, first step: `/ready` answers 503; everything else still serves (the grace).
    func beginDrain() { draining.store(true, ordering: .releasing) }

    /// SIGTERM, after the grace: no new connection is accepted, sockets are being closed.
    var isClosing: Bool { closing.load(ordering: .acquiring) }

    func beginClosing() { closing.store(true, ordering: .releasing) }

    func routes(for listener: ListenerKind) -> RouteTable {
        listener == .public ? publicRoutes : adminRoutes
    }
}
