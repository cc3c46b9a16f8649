import WhisperOps

/// Where and how to reach Redis: from a `RedisEndpoint` (docs/operations.md "Configuration" `WHISPER_REDIS_URL`),
/// or field by field.
public struct RedisConfiguration: Sendable, Equatable {
    /// Prefer an IP address. hiredis 0.14 resolves names with a blocking `getaddrinfo` on
    /// the loop thread at every (re)connect, and tries only the first address it gets.
    public var host: String
    public var port: Int
    /// ACL user (Redis 6+); nil sends `AUTH password`.
    public var username: String?
    public var password: String?
    public var database: Int
    /// A reply slower than this marks the connection broken (hiredis 0.14 has no async
    /// timeouts, so the loop's timers enforce it). Also bounds the TCP connect.
    public var commandTimeoutMillis: Int
    public var reconnectInitialMillis: Int
    public var reconnectMaximumMillis: Int

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
    }

    /// A URL read by `RedisEndpoint.parse`, the one Redis URL parser (its errors never echo
    /// the password).
    public init(url: String) throws(ConfigError) {
        self.init(endpoint: try RedisEndpoint.parse(url))
    }

    /// `host:port/db` without credentials, for logs.
    public var redactedDescription: String {
        "redis://\(host.contains(":") ? "[\(host)]" : host):\(port)/\(database)"
    }
}
