import WhisperOps
import WhisperRuntime

/// Where and how to reach Redis: from a `RedisEndpoint` (docs/operations.md "Configuration" `WHISPER_REDIS_URL`),
/// or field by field.
public struct RedisConfiguration: Sendable, Equatable {
    /// A name is resolved off the loop at every (re)connect, and each of its addresses is tried
    /// in turn; an IP address skips the lookup.
    public var host: String
    public var port: Int
    /// ACL user (Redis 6+); nil sends `AUTH password`.
    public var username: String?
    public var password: String?
    public var database: Int
    /// TLS (`rediss://`) with these files; nil = plain TCP.
    public var tls: RedisTLSSettings?
    /// A reply slower than this marks the connection broken (the loop's timers enforce it).
    /// Also bounds a connect: the lookup, every address tried and the TLS handshake.
    public var commandTimeoutMillis: Int
    public var reconnectInitialMillis: Int
    public var reconnectMaximumMillis: Int
    /// Redis Cluster (`WHISPER_REDIS_CLUSTER=1`): `RedisClient` routes by slot (`RedisCluster`).
    /// The database is always 0 there.
    public var cluster = false
    /// Cluster nodes to fetch the first slot map from; empty: `host:port` alone.
    public var seeds: [RedisNodeAddress] = []
    /// How long a retry-safe command waits in a cluster for its slot to be served again (a
    /// failover: the node timeout plus the election). Longer failovers surface `.disconnected`.
    public var clusterRetryWindowMillis = 5_000
    /// Replicas a write must reach before the callers that ask for it (`RedisReplicaWait`) count it
    /// as done; 0 = none asked (docs/operations.md "Durability of accepted messages").
    public var minReplicas = 0
    /// How long that `WAIT` may take; below `commandTimeoutMillis`.
    public var replicaWaitTimeoutMillis = 500

    public init(host: String = "127.0.0.1", port: Int = 6379, username: String? = nil, password: String? = nil,
                database: Int = 0, commandTimeoutMillis: Int = 5_000,
                reconnectInitialMillis: Int = 50, reconnectMaximumMillis: Int = 2_000) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.database = database
        self.commandTimeoutMillis = commandTimeoutMillis
        self.reconnectInitialMillis = reconnectInitialMillis
        self.reconnectMaximumMillis = reconnectMaximumMillis
    }

    /// The address and credentials of a parsed `WHISPER_REDIS_URL`; timeouts and backoff keep
    /// their defaults unless given.
    public init(endpoint: RedisEndpoint, commandTimeoutMillis: Int = 5_000,
                reconnectInitialMillis: Int = 50, reconnectMaximumMillis: Int = 2_000) {
        self.init(host: endpoint.host, port: Int(endpoint.port), username: endpoint.username,
                  password: endpoint.password?.unredacted, database: endpoint.database,
                  commandTimeoutMillis: commandTimeoutMillis, reconnectInitialMillis: reconnectInitialMillis,
                  reconnectMaximumMillis: reconnectMaximumMillis)
        tls = endpoint.tls
        cluster = endpoint.cluster
        minReplicas = endpoint.minReplicas
        replicaWaitTimeoutMillis = endpoint.replicaWaitTimeoutMillis
        if cluster {
            seeds = ([(endpoint.host, endpoint.port)] + endpoint.additionalNodes.map { ($0.host, $0.port) })
                .map { RedisNodeAddress(host: $0.0, port: Int($0.1)) }
        }
    }

    /// A URL read by `RedisEndpoint.parse`, the one Redis URL parser (its errors never echo
    /// the password).
    public init(url: String) throws(ConfigError) {
        self.init(endpoint: try RedisEndpoint.parse(url))
    }

    /// `host:port/db` without credentials, for logs (cluster: the seeds).
    public var redactedDescription: String {
        let scheme = tls == nil ? "redis" : "rediss"
        guard cluster, !seeds.isEmpty else { return "\(scheme)://\(host.contains(":") ? "[\(host)]" : host):\(port)/\(database)" }
        return "\(scheme)://\(seeds.map(\.description).joined(separator: ","))/0 (cluster)"
    }

    /// The TLS context for `tls` (its files read now), nil for plain TCP. The certificate must be
    /// valid for `tls.serverName`, else for `host`.
    public func clientTLS() throws(TLSConfigError) -> ClientTLS? {
        guard let tls else { return nil }
        let context = try TLSClientContext(caFile: tls.caFile, certificateFile: tls.certificateFile, keyFile: tls.keyFile)
        return ClientTLS(context: context, serverName: tls.serverName ?? host)
    }
}
