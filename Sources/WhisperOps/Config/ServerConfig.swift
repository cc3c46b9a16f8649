import WhisperProtocol

/// Everything the server reads from its environment (docs/operations.md "Configuration"; docs/operations.md "Rate limits"). This file is the one
/// place configuration is defined; every variable, its default and its range:
///
/// | variable | default | meaning |
/// |---|---|---|
/// | `WHISPER_PUBLIC_ADDR` | `0.0.0.0:8080` | public listener, `host:port` or `[v6]:port`; port 0 = ephemeral |
/// | `WHISPER_ADMIN_ADDR` | `127.0.0.1:9090` | admin listener (`/metrics`, `/admin/*`) |
/// | `WHISPER_DATABASE_URL` | — | libpq URI `postgres[ql]://…`; required by `serve` and `migrate` |
/// | `WHISPER_REDIS_URL` | `redis://127.0.0.1:6379/0` | `redis://[:password@]host[:port][/db]` |
/// | `WHISPER_REDIS_PREFIX` | `whisper:` | prefix of every Redis key and channel |
/// | `WHISPER_ADMIN_TOKEN` | — | bearer token for `/admin/*`; unset = admin API refuses all |
/// | `WHISPER_TLS_CERT`, `WHISPER_TLS_KEY` | — | PEM paths, both or neither; TLS on both listeners |
/// | `WHISPER_TURN_SECRET`, `WHISPER_TURN_URLS` | — | coturn shared secret and comma-separated URIs, both or neither |
/// | `WHISPER_TURN_TTL_SECONDS` | 43200 | lifetime of issued TURN credentials, 1–604800 |
/// | `WHISPER_S3_*` | — | object store, see `S3Settings` |
/// | `WHISPER_APNS_*`, `WHISPER_FCM_*`, `WHISPER_PUSH_CA_FILE` | — | push providers, see `PushSettings` |
/// | `WHISPER_PUSH_COALESCE_SECONDS` | 30 | at most one message wake-up per user per this window, 1–86400 |
/// | `WHISPER_LOG_LEVEL` | `info` | `debug`, `info`, `warn`, `error` |
/// | `WHISPER_THREADS` | usable cores | event-loop threads, 1–1024 |
/// | `WHISPER_MIGRATE_ON_START` | false | run migrations before `serve` listens |
/// | `WHISPER_PG_POOL_SIZE` | 4 | PostgreSQL worker connections (transactions), 1–256 |
/// | `WHISPER_PG_LOOP_SESSIONS` | 2 | pipelined PostgreSQL sessions per event loop for its single statements, 0–64; 0 sends them to the workers |
/// | `WHISPER_WS_IDLE_TIMEOUT_SECONDS` | 90 | close a silent WebSocket after this, 2–86400 |
/// | `WHISPER_WS_PING_INTERVAL_SECONDS` | 30 (at most idle/3) | server ping period; must be below the idle timeout |
/// | `WHISPER_MAX_WS_MESSAGE_BYTES` | 512000 | larger message → close 1009; 1024–67108864 |
/// | `WHISPER_OUTPUT_BUFFER_LIMIT_BYTES` | 8388608 (more if 2 × max message or a full contacts-backup download needs it) | queued output past which a slow consumer is dropped; at least each of those |
/// | `WHISPER_HTTP_REQUEST_TIMEOUT_SECONDS` | 10 | time to receive a whole HTTP request, 1–3600 |
/// | `WHISPER_HTTP_IDLE_TIMEOUT_SECONDS` | 60 | close a keep-alive HTTP connection idle this long, 1–86400 |
/// | `WHISPER_DRAIN_TIMEOUT_SECONDS` | 25 | SIGTERM: longest wait for in-flight work, 0–3600 |
/// | `WHISPER_TEST_ECHO` | false | TEST ONLY, never in production: `/ws` echoes text messages instead of running the protocol (Autobahn suite) |
/// | `WHISPER_CHALLENGE_TTL_SECONDS` | 60 | lifetime of a `register_challenge`, 1–3600 |
/// | `WHISPER_SESSION_TTL_SECONDS` | 604800 (7 days) | lifetime of a session token, 60–2592000 |
/// | `WHISPER_CALL_RING_TIMEOUT_SECONDS` | 60 | an unanswered call ends after this, 1–600 |
/// | `WHISPER_MAX_PENDING_PER_USER` | 10000 | messages one user's pending queue may hold; a send beyond it gets `RATE_LIMITED`, 1–10000000 |
/// | `WHISPER_MAX_GROUP_MEMBERS` | 256 | members of one group, owner included; more → `INVALID_PAYLOAD`, 2–100000 |
/// | `WHISPER_MAX_BLOCKS_PER_USER` | 10000 | identities one user may block; a `block` beyond it → `INVALID_PAYLOAD`, 1–100000 |
/// | `WHISPER_RATE_<ACTION>[_IP]` | see `RateLimits` | `<count>/<seconds>` |
///
/// Booleans are `1|true|yes` / `0|false|no`, case-insensitive. An empty value counts as unset.
/// Values are trimmed, except secrets and paths which are taken verbatim.
///
/// Every size, TTL and timeout setting lands in `limits`, the one `Limits` value the server
/// hands to every layer that checks one.
public struct ServerConfig: Sendable {
    public var publicAddress: SocketAddressSpec
    public var adminAddress: SocketAddressSpec
    /// The libpq URI as given; contains the password, so print `redactedSummary()` instead.
    public var databaseURL: String?
    public var redis: RedisEndpoint
    public var redisPrefix: String
    public var adminToken: Secret?
    public var tls: TLSFiles?
    public var turn: TurnSettings?
    public var s3: S3Settings?
    /// Push providers; each one nil when not configured (that provider is disabled).
    public var push: PushSettings
    public var logLevel: LogLevel
    public var threads: Int
    public var migrateOnStart: Bool
    public var postgresPoolSize: Int
    /// `WHISPER_PG_LOOP_SESSIONS`: `PostgresConfiguration.sessionsPerLoop`.
    public var postgresLoopSessions: Int
    public var drainTimeoutSeconds: Int
    /// TEST ONLY (Autobahn): `/ws` echoes text messages instead of running the frame layer.
    /// Never enable in production: it bypasses authentication and every protocol check.
    public var testEcho: Bool
    /// Sizes, TTLs and timeouts: the defaults of `Limits` with the settings above applied.
    public var limits: Limits
    public var rateLimits: RateLimits
    /// `WHISPER_*` names that were set but mean nothing here (sorted), for a start-up warning.
    public var unrecognizedVariables: [String]

    /// Loads and validates the configuration from `environment` (pass `ProcessInfo`'s, or
    /// `ConfigFile.merged(...)`). Throws on the first bad value.
    public static func load(environment: [String: String]) throws(ConfigError) -> ServerConfig {
        try load(environment: environment, defaultThreads: CoreCount.active())
    }

    static func load(environment: [String: String], defaultThreads: Int) throws(ConfigError) -> ServerConfig {
        let env = EnvironmentReader(environment: environment)
        let databaseURL = try loadDatabaseURL(env)
        let redis = try env.trimmed("WHISPER_REDIS_URL").map { text throws(ConfigError) in
            try RedisEndpoint.parse(text)
        } ?? RedisEndpoint(host: "127.0.0.1")
        let logLevel = try loadLogLevel(env)
        var config = ServerConfig(
            publicAddress: try env.address("WHISPER_PUBLIC_ADDR", default: SocketAddressSpec(host: "0.0.0.0", port: 8080)),
            adminAddress: try env.address("WHISPER_ADMIN_ADDR", default: SocketAddressSpec(host: "127.0.0.1", port: 9090)),
            databaseURL: databaseURL,
            redis: redis,
            redisPrefix: try loadRedisPrefix(env),
            adminToken: env.raw("WHISPER_ADMIN_TOKEN").map(Secret.init),
            tls: try TLSFiles.load(from: env),
            turn: try TurnSettings.load(from: env),
            s3: try S3Settings.load(from: env),
            push: try PushSettings.load(from: env),
            logLevel: logLevel,
            threads: try env.integer("WHISPER_THREADS", default: max(1, defaultThreads), in: 1...1024),
            migrateOnStart: try env.bool("WHISPER_MIGRATE_ON_START", default: false),
            postgresPoolSize: try env.integer("WHISPER_PG_POOL_SIZE", default: 4, in: 1...256),
            postgresLoopSessions: try env.integer("WHISPER_PG_LOOP_SESSIONS", default: 2, in: 0...64),
            drainTimeoutSeconds: try env.integer("WHISPER_DRAIN_TIMEOUT_SECONDS", default: 25, in: 0...3600),
            testEcho: try env.bool("WHISPER_TEST_ECHO", default: false),
            limits: try loadLimits(env),
            rateLimits: try RateLimits.load(from: env),
            unrecognizedVariables: [])
        try config.checkConsistency()
        config.unrecognizedVariables = env.names(withPrefix: "WHISPER_").filter { !knownVariables.contains($0) }
        return config
    }

    /// The database URL, or the error `serve` and `migrate` stop with when it is unset.
    public func requireDatabaseURL() throws(ConfigError) -> String {
        guard let databaseURL else {
            throw .missing(variable: "WHISPER_DATABASE_URL",
                           reason: "a postgres://user:password@host:port/db URI is required")
        }
        return databaseURL
    }

    /// The size, TTL and timeout settings, applied to the defaults of `Limits`.
    private static func loadLimits(_ env: EnvironmentReader) throws(ConfigError) -> Limits {
        var limits = Limits()
        limits.maxWebSocketMessageBytes = try env.integer("WHISPER_MAX_WS_MESSAGE_BYTES",
                                                          default: limits.maxWebSocketMessageBytes, in: 1024...64 << 20)
        limits.webSocketIdleTimeoutSeconds = try env.integer("WHISPER_WS_IDLE_TIMEOUT_SECONDS",
                                                             default: limits.webSocketIdleTimeoutSeconds, in: 2...86_400)
        // Defaults that depend on another setting, so that changing one alone stays consistent.
        let defaultPing = min(limits.webSocketPingIntervalSeconds, max(1, limits.webSocketIdleTimeoutSeconds / 3))
        limits.webSocketPingIntervalSeconds = try env.integer("WHISPER_WS_PING_INTERVAL_SECONDS",
                                                              default: defaultPing, in: 1...86_400)
        let defaultOutputLimit = max(limits.outputBufferLimitBytes, 2 * limits.maxWebSocketMessageBytes,
                                     limits.maxHTTPResponseBytes)
        limits.outputBufferLimitBytes = try env.integer("WHISPER_OUTPUT_BUFFER_LIMIT_BYTES",
                                                        default: defaultOutputLimit, in: 1...1 << 30)
        limits.maxConnectionsPerIP = try env.integer("WHISPER_MAX_CONNECTIONS_PER_IP",
                                                     default: limits.maxConnectionsPerIP, in: 0...10_000_000)
        limits.httpRequestTimeoutSeconds = try env.integer("WHISPER_HTTP_REQUEST_TIMEOUT_SECONDS",
                                                           default: limits.httpRequestTimeoutSeconds, in: 1...3600)
        limits.httpIdleTimeoutSeconds = try env.integer("WHISPER_HTTP_IDLE_TIMEOUT_SECONDS",
                                                        default: limits.httpIdleTimeoutSeconds, in: 1...86_400)
        limits.challengeTTLSeconds = Int64(try env.integer("WHISPER_CHALLENGE_TTL_SECONDS",
                                                           default: Int(limits.challengeTTLSeconds), in: 1...3600))
        limits.sessionTTLSeconds = Int64(try env.integer("WHISPER_SESSION_TTL_SECONDS",
                                                         default: Int(limits.sessionTTLSeconds), in: 60...30 * 86_400))
        limits.maxPendingPerUser = try env.integer("WHISPER_MAX_PENDING_PER_USER",
                                                   default: limits.maxPendingPerUser, in: 1...10_000_000)
        limits.maxGroupMembers = try env.integer("WHISPER_MAX_GROUP_MEMBERS", default: limits.maxGroupMembers, in: 2...100_000)
        limits.maxBlocksPerUser = try env.integer("WHISPER_MAX_BLOCKS_PER_USER", default: limits.maxBlocksPerUser, in: 1...100_000)
        limits.turnCredentialTTLSeconds = try env.integer("WHISPER_TURN_TTL_SECONDS",
                                                          default: limits.turnCredentialTTLSeconds, in: 1...7 * 86_400)
        limits.callRingTimeoutSeconds = Int64(try env.integer("WHISPER_CALL_RING_TIMEOUT_SECONDS",
                                                              default: Int(limits.callRingTimeoutSeconds), in: 1...600))
        limits.presenceMinIntervalMillis = Int64(try env.integer("WHISPER_PRESENCE_MIN_INTERVAL_MS",
                                                                 default: Int(limits.presenceMinIntervalMillis), in: 0...3_600_000))
        limits.presenceOfflineGraceMillis = Int64(try env.integer("WHISPER_PRESENCE_OFFLINE_GRACE_MS",
                                                                  default: Int(limits.presenceOfflineGraceMillis), in: 0...600_000))
        limits.nodeHeartbeatSeconds = try env.integer("WHISPER_NODE_HEARTBEAT_SECONDS",
                                                      default: limits.nodeHeartbeatSeconds, in: 1...60)
        limits.nodeTTLSeconds = try env.integer("WHISPER_NODE_TTL_SECONDS",
                                                default: max(limits.nodeTTLSeconds, 3 * limits.nodeHeartbeatSeconds), in: 2...600)
        limits.drainGraceSeconds = try env.integer("WHISPER_DRAIN_GRACE_SECONDS", default: limits.drainGraceSeconds, in: 0...600)
        limits.drainWindowSeconds = try env.integer("WHISPER_DRAIN_WINDOW_SECONDS", default: limits.drainWindowSeconds, in: 0...600)
        limits.attachmentUploadURLTTLSeconds = try env.integer("WHISPER_ATTACHMENT_UPLOAD_URL_TTL_SECONDS",
                                                               default: limits.attachmentUploadURLTTLSeconds, in: 1...604_800)
        limits.attachmentDownloadURLTTLSeconds = try env.integer("WHISPER_ATTACHMENT_DOWNLOAD_URL_TTL_SECONDS",
                                                                 default: limits.attachmentDownloadURLTTLSeconds, in: 1...604_800)
        limits.attachmentRetentionSeconds = Int64(try env.integer("WHISPER_ATTACHMENT_RETENTION_SECONDS",
                                                                  default: Int(limits.attachmentRetentionSeconds),
                                                                  in: 1...3650 * 86_400))
        limits.attachmentUnreferencedGraceSeconds = Int64(try env.integer(
            "WHISPER_ATTACHMENT_UNREFERENCED_GRACE_SECONDS", default: Int(limits.attachmentUnreferencedGraceSeconds),
            in: 0...3650 * 86_400))
        limits.attachmentGCIntervalSeconds = try env.integer("WHISPER_ATTACHMENT_GC_INTERVAL_SECONDS",
                                                             default: limits.attachmentGCIntervalSeconds, in: 1...86_400)
        limits.pushCoalesceSeconds = try env.integer("WHISPER_PUSH_COALESCE_SECONDS",
                                                     default: limits.pushCoalesceSeconds, in: 1...86_400)
        return limits
    }

    /// Rules that relate two settings.
    private func checkConsistency() throws(ConfigError) {
        let ping = limits.webSocketPingIntervalSeconds, idle = limits.webSocketIdleTimeoutSeconds
        if ping >= idle {
            throw .conflict(variable: "WHISPER_WS_PING_INTERVAL_SECONDS",
                            reason: "must be less than WHISPER_WS_IDLE_TIMEOUT_SECONDS (\(idle)), got \(ping)")
        }
        // A slow consumer must be able to hold at least two full messages before it is dropped.
        let output = limits.outputBufferLimitBytes, message = limits.maxWebSocketMessageBytes
        if output < 2 * message {
            throw .conflict(variable: "WHISPER_OUTPUT_BUFFER_LIMIT_BYTES",
                            reason: "must be at least twice WHISPER_MAX_WS_MESSAGE_BYTES (\(2 * message)), got \(output)")
        }
        // …and the largest HTTP response (a full contacts backup) in one piece.
        if output < limits.maxHTTPResponseBytes {
            throw .conflict(variable: "WHISPER_OUTPUT_BUFFER_LIMIT_BYTES",
                            reason: "must hold the largest HTTP response, a full contacts backup (\(limits.maxHTTPResponseBytes) bytes), got \(output)")
        }
        // A live node must never look dead between two heartbeats.
        let heartbeat = limits.nodeHeartbeatSeconds, nodeTTL = limits.nodeTTLSeconds
        if nodeTTL < 2 * heartbeat {
            throw .conflict(variable: "WHISPER_NODE_TTL_SECONDS",
                            reason: "must be at least twice WHISPER_NODE_HEARTBEAT_SECONDS (\(2 * heartbeat)), got \(nodeTTL)")
        }
    }

    private static func loadDatabaseURL(_ env: EnvironmentReader) throws(ConfigError) -> String? {
        guard let url = env.trimmed("WHISPER_DATABASE_URL") else { return nil }
        let lower = url.lowercased()
        let schemeLength = lower.hasPrefix("postgres://") ? 11 : lower.hasPrefix("postgresql://") ? 13 : 0
        guard schemeLength > 0, url.utf8.count > schemeLength,
              !url.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F })
        else {
            throw ConfigError.invalid("WHISPER_DATABASE_URL", expected: "a postgres:// or postgresql:// URI",
                                      got: URLRedaction.redact(url))
        }
        return url
    }

    private static func loadRedisPrefix(_ env: EnvironmentReader) throws(ConfigError) -> String {
        guard let prefix = env.trimmed("WHISPER_REDIS_PREFIX") else { return "whisper:" }
        guard prefix.utf8.count <= 64, prefix.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw ConfigError.invalid("WHISPER_REDIS_PREFIX",
                                      expected: "up to 64 printable ASCII characters without spaces", got: prefix)
        }
        return prefix
    }

    private static func loadLogLevel(_ env: EnvironmentReader) throws(ConfigError) -> LogLevel {
        guard let text = env.trimmed("WHISPER_LOG_LEVEL") else { return .info }
        guard let level = LogLevel(name: text) else {
            throw ConfigError.invalid("WHISPER_LOG_LEVEL", expected: "one of debug|info|warn|error", got: text)
        }
        return level
    }

    /// Every variable `load` reads (rate limits are checked separately by `RateLimits`).
    static let knownVariables: Set<String> = {
        var names: Set<String> = [
            "WHISPER_PUBLIC_ADDR", "WHISPER_ADMIN_ADDR", "WHISPER_DATABASE_URL", "WHISPER_REDIS_URL",
            "WHISPER_REDIS_PREFIX", "WHISPER_ADMIN_TOKEN", "WHISPER_TLS_CERT", "WHISPER_TLS_KEY",
            "WHISPER_TURN_SECRET", "WHISPER_TURN_URLS", "WHISPER_TURN_TTL_SECONDS", "WHISPER_LOG_LEVEL", "WHISPER_THREADS",
            "WHISPER_MIGRATE_ON_START", "WHISPER_PG_POOL_SIZE", "WHISPER_PG_LOOP_SESSIONS", "WHISPER_WS_IDLE_TIMEOUT_SECONDS",
            "WHISPER_WS_PING_INTERVAL_SECONDS", "WHISPER_MAX_WS_MESSAGE_BYTES",
            "WHISPER_OUTPUT_BUFFER_LIMIT_BYTES", "WHISPER_MAX_CONNECTIONS_PER_IP", "WHISPER_HTTP_REQUEST_TIMEOUT_SECONDS", "WHISPER_HTTP_IDLE_TIMEOUT_SECONDS",
            "WHISPER_DRAIN_TIMEOUT_SECONDS", "WHISPER_TEST_ECHO", "WHISPER_CHALLENGE_TTL_SECONDS",
            "WHISPER_SESSION_TTL_SECONDS", "WHISPER_MAX_PENDING_PER_USER", "WHISPER_MAX_GROUP_MEMBERS",
            "WHISPER_CALL_RING_TIMEOUT_SECONDS",
            "WHISPER_MAX_BLOCKS_PER_USER",
            "WHISPER_PRESENCE_MIN_INTERVAL_MS", "WHISPER_PRESENCE_OFFLINE_GRACE_MS", "WHISPER_NODE_HEARTBEAT_SECONDS",
            "WHISPER_NODE_TTL_SECONDS", "WHISPER_ATTACHMENT_UPLOAD_URL_TTL_SECONDS", "WHISPER_ATTACHMENT_DOWNLOAD_URL_TTL_SECONDS",
            "WHISPER_ATTACHMENT_RETENTION_SECONDS", "WHISPER_ATTACHMENT_UNREFERENCED_GRACE_SECONDS",
            "WHISPER_ATTACHMENT_GC_INTERVAL_SECONDS", "WHISPER_PUSH_COALESCE_SECONDS",
            "WHISPER_DRAIN_GRACE_SECONDS", "WHISPER_DRAIN_WINDOW_SECONDS",
        ]
        names.formUnion(S3Settings.variables)
        names.formUnion(PushSettings.variables)
        for action in RateLimitAction.allCases {
            for scope in RateLimitScope.allCases { names.insert(scope.variable(for: action)) }
        }
        return names
    }()
}
