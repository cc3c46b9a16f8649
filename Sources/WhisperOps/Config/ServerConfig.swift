import WhisperProtocol

/// Everything the server reads from its environment (docs/operations.md "Configuration"; docs/operations.md "Rate limits"). This file is the one
/// place configuration is defined; every variable, its default and its range:
///
/// | variable | default | meaning |
/// |---|---|---|
/// | `WHISPER_PUBLIC_ADDR` | `0.0.0.0:8080` | public listener, `host:port` or `[v6]:port`; port 0 = ephemeral |
/// | `WHISPER_ADMIN_ADDR` | `127.0.0.1:9090` | admin listener (`/metrics`, `/admin/*`) |
/// | `WHISPER_DATABASE_URL` | — | libpq URI `postgres[ql]://…`; required by `serve` and `migrate` |
/// | `WHISPER_REDIS_URL` | `redis://127.0.0.1:6379/0` | `redis[s]://[:password@]host[:port][/db]`; `rediss` = TLS; cluster seeds `redis://h1:p1,h2:p2/` |
/// | `WHISPER_REDIS_TLS_*` | — | CA file, client certificate, server name for `rediss://`, see `RedisTLSSettings` |
/// | `WHISPER_REDIS_CLUSTER` | false | Redis Cluster (database 0): `WHISPER_REDIS_URL` names seed nodes, every script runs in one-slot steps |
/// | `WHISPER_REDIS_MIN_REPLICAS` | 0 | replicas that must confirm (`WAIT`) an accepted message before `message_accepted`, 0–16; 0 = no `WAIT` |
/// | `WHISPER_REDIS_WAIT_TIMEOUT_MS` | 500 | longest `WAIT` for them; short of them the sender gets `INTERNAL_ERROR` and retries, 1–4000 |
/// | `WHISPER_REDIS_PREFIX` | `whisper:` | prefix of every Redis key and channel |
/// | `WHISPER_ADMIN_TOKEN` | — | bearer token for `/admin/*`; unset = admin API refuses all |
/// | `WHISPER_TLS_CERT`, `WHISPER_TLS_KEY` | — | PEM paths, both or neither; TLS on both listeners |
/// | `WHISPER_PROXY_PROTOCOL`, `WHISPER_PROXY_PROTOCOL_SOURCES` | off | PROXY v2 from these CIDRs on the public listener, see `ProxyProtocolSettings` |
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
/// | `WHISPER_MAX_CONNECTIONS_PER_IP` | 10000 | open connections of one client address on the public listener, 0–10000000; 0 = no limit |
/// | `WHISPER_CONNECTION_RATE_PER_IP`, `WHISPER_CONNECTION_BURST_PER_IP` | 50, 1000 | new connections per second of one client address (IPv6: /64) after a burst; rate 0 = no limit |
/// | `WHISPER_HTTP_REQUEST_TIMEOUT_SECONDS` | 10 | time to receive a whole HTTP request, 1–3600 |
/// | `WHISPER_HTTP_IDLE_TIMEOUT_SECONDS` | 60 | close a keep-alive HTTP connection idle this long, 1–86400 |
/// | `WHISPER_DRAIN_TIMEOUT_SECONDS` | 25 | SIGTERM: longest wait for in-flight work, 0–3600 |
/// | `WHISPER_TEST_ECHO` | false | TEST ONLY, never in production: `/ws` echoes text messages instead of running the protocol (Autobahn suite) |
/// | `WHISPER_CHALLENGE_TTL_SECONDS` | 60 | lifetime of a `register_challenge`, 1–3600 |
/// | `WHISPER_SESSION_TTL_SECONDS` | 604800 (7 days) | lifetime of a session token, 60–2592000 |
/// | `WHISPER_CALL_RING_TIMEOUT_SECONDS` | 60 | an unanswered call ends after this, 1–600 |
/// | `WHISPER_CALL_CONFIRM_TIMEOUT_MS` | 2000 | an offer on a live-looking socket that no `call_received` confirms within this is pushed as to an offline callee, 100–60000 |
/// | `WHISPER_MAX_PENDING_PER_USER` | 10000 | messages one user's pending queue may hold; a send beyond it gets `RATE_LIMITED`, 1–10000000 |
/// | `WHISPER_MAX_GROUP_MEMBERS` | 256 | members of one group, owner included; more → `INVALID_PAYLOAD`, 2–100000 |
/// | `WHISPER_MAX_TEXT_BYTES` | 8000 | plaintext of a text message (ciphertext + 16), 1–1000000; its base64 must fit a WebSocket message |
/// | `WHISPER_MAX_IMAGE_BYTES`, `…_VOICE_BYTES`, `…_FILE_BYTES` | 15/25/50 MB | attachment ciphertext caps, 1–5000000000 |
/// | `WHISPER_MAX_CONTACTS_BACKUP_BYTES` | 5000000 | decoded contacts-backup blob, 1–100000000 |
/// | `WHISPER_PENDING_TTL_SECONDS` | 259200 (72 h) | pending messages, idempotency keys and kept events, 60–2592000 |
/// | `WHISPER_TIMESTAMP_SKEW_MS` | 600000 | accepted distance of a frame's `timestamp` from server time, 1000–86400000 |
/// | `WHISPER_FETCH_PENDING_DEFAULT_LIMIT` | 50 | `fetch_pending` page without `limit`, 1–200 (the 200 maximum is wire contract) |
/// | `WHISPER_MIGRATIONS_DIR` | see `MigrationsDirectory` | where the `NNNN_name.sql` files are |
/// | `WHISPER_MAX_BLOCKS_PER_USER` | 10000 | identities one user may block; a `block` beyond it → `INVALID_PAYLOAD`, 1–100000 |
/// | `WHISPER_RATE_<ACTION>[_IP]` | see `RateLimits` | `<count>/<seconds>` |
///
/// Booleans are `1|true|yes` / `0|false|no`, case-insensitive. An empty value counts as unset.
/// Values are trimmed, except secrets and paths which are taken verbatim. Any other `WHISPER_*`
/// name is reported in `unrecognizedVariables` (a start-up warning, see `UnknownVariable`).
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
    /// PROXY protocol v2 on the public listener; nil = off.
    public var proxyProtocol: ProxyProtocolSettings?
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
    /// `WHISPER_MIGRATIONS_DIR`: where the migrations are, when not in the default places.
    public var migrationsDirectory: String?
    /// TEST ONLY (Autobahn): `/ws` echoes text messages instead of running the frame layer.
    /// Never enable in production: it bypasses authentication and every protocol check.
    public var testEcho: Bool
    /// Sizes, TTLs and timeouts: the defaults of `Limits` with the settings above applied.
    public var limits: Limits
    public var rateLimits: RateLimits
    /// `WHISPER_*` names that were set but mean nothing here (sorted), each with the known name
    /// it probably meant: one start-up warning each (`logStartupWarnings`).
    public var unrecognizedVariables: [UnknownVariable]

    /// Loads and validates the configuration from `environment` (pass `ProcessInfo`'s). Throws on
    /// the first bad value.
    public static func load(environment: [String: String]) throws(ConfigError) -> ServerConfig {
        try load(environment: environment, defaultThreads: CoreCount.active())
    }

    static func load(environment: [String: String], defaultThreads: Int) throws(ConfigError) -> ServerConfig {
        var config = try load(EnvironmentReader(environment: environment), defaultThreads: defaultThreads)
        config.unrecognizedVariables = UnknownVariable.find(in: environment, known: knownVariables)
        return config
    }

    /// Every variable the configuration reads, rate limits included: the names a load asks its
    /// `EnvironmentReader` for, so this set is the loading code itself, not a list beside it.
    /// (Every read is unconditional — `ServerConfigVariablesTests` checks that a load with every
    /// optional feature on asks for the same names as a load of the empty environment.)
    public static let knownVariables: Set<String> = askedNames(environment: [:])

    /// The names one load of `environment` asks for.
    static func askedNames(environment: [String: String]) -> Set<String> {
        let env = EnvironmentReader(environment: environment)
        _ = try? load(env, defaultThreads: 1)
        return env.askedNames
    }

    private static func load(_ env: EnvironmentReader, defaultThreads: Int) throws(ConfigError) -> ServerConfig {
        let databaseURL = try loadDatabaseURL(env)
        let redis = try loadRedis(env)
        let logLevel = try loadLogLevel(env)
        let config = ServerConfig(
            publicAddress: try env.address("WHISPER_PUBLIC_ADDR", default: SocketAddressSpec(host: "0.0.0.0", port: 8080)),
            adminAddress: try env.address("WHISPER_ADMIN_ADDR", default: SocketAddressSpec(host: "127.0.0.1", port: 9090)),
            databaseURL: databaseURL,
            redis: redis,
            redisPrefix: try loadRedisPrefix(env),
            adminToken: env.raw("WHISPER_ADMIN_TOKEN").map(Secret.init),
            tls: try TLSFiles.load(from: env),
            proxyProtocol: try ProxyProtocolSettings.load(from: env),
            turn: try TurnSettings.load(from: env),
            s3: try S3Settings.load(from: env),
            push: try PushSettings.load(from: env),
            logLevel: logLevel,
            threads: try env.integer("WHISPER_THREADS", default: max(1, defaultThreads), in: 1...1024),
            migrateOnStart: try env.bool("WHISPER_MIGRATE_ON_START", default: false),
            postgresPoolSize: try env.integer("WHISPER_PG_POOL_SIZE", default: 4, in: 1...256),
            postgresLoopSessions: try env.integer("WHISPER_PG_LOOP_SESSIONS", default: 2, in: 0...64),
            drainTimeoutSeconds: try env.integer("WHISPER_DRAIN_TIMEOUT_SECONDS", default: 25, in: 0...3600),
            migrationsDirectory: env.raw("WHISPER_MIGRATIONS_DIR"),
            testEcho: try env.bool("WHISPER_TEST_ECHO", default: false),
            limits: try loadLimits(env),
            rateLimits: try RateLimits.load(from: env),
            unrecognizedVariables: [])
        try config.checkConsistency()
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
        try loadMessageLimits(env, into: &limits)
        let defaultOutputLimit = max(limits.outputBufferLimitBytes, 2 * limits.maxWebSocketMessageBytes,
                                     limits.maxHTTPResponseBytes)
        limits.outputBufferLimitBytes = try env.integer("WHISPER_OUTPUT_BUFFER_LIMIT_BYTES",
                                                        default: defaultOutputLimit, in: 1...1 << 30)
        limits.maxConnectionsPerIP = try env.integer("WHISPER_MAX_CONNECTIONS_PER_IP",
                                                     default: limits.maxConnectionsPerIP, in: 0...10_000_000)
        limits.connectionRatePerIP = try env.integer("WHISPER_CONNECTION_RATE_PER_IP",
                                                     default: limits.connectionRatePerIP, in: 0...1_000_000)
        limits.connectionBurstPerIP = try env.integer("WHISPER_CONNECTION_BURST_PER_IP",
                                                      default: limits.connectionBurstPerIP, in: 1...10_000_000)
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
        limits.callConfirmTimeoutMillis = Int64(try env.integer("WHISPER_CALL_CONFIRM_TIMEOUT_MS",
                                                                default: Int(limits.callConfirmTimeoutMillis), in: 100...60_000))
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

    /// The limits of spec §11 that bound what a client sends and how long it is kept
    /// (docs/operations.md "Configuration"). Loaded before the output buffer, whose default
    /// follows the contacts-backup cap.
    private static func loadMessageLimits(_ env: EnvironmentReader, into limits: inout Limits) throws(ConfigError) {
        limits.maxTextPlaintextBytes = try env.integer("WHISPER_MAX_TEXT_BYTES",
                                                       default: limits.maxTextPlaintextBytes, in: 1...1_000_000)
        // S3 takes at most 5 GB in one PUT, and a presigned upload is one PUT.
        limits.maxImageBytes = try env.integer("WHISPER_MAX_IMAGE_BYTES", default: limits.maxImageBytes, in: 1...5_000_000_000)
        limits.maxVoiceBytes = try env.integer("WHISPER_MAX_VOICE_BYTES", default: limits.maxVoiceBytes, in: 1...5_000_000_000)
        limits.maxFileBytes = try env.integer("WHISPER_MAX_FILE_BYTES", default: limits.maxFileBytes, in: 1...5_000_000_000)
        limits.maxContactsBackupBytes = try env.integer("WHISPER_MAX_CONTACTS_BACKUP_BYTES",
                                                        default: limits.maxContactsBackupBytes, in: 1...100_000_000)
        limits.pendingTTLSeconds = Int64(try env.integer("WHISPER_PENDING_TTL_SECONDS",
                                                         default: Int(limits.pendingTTLSeconds), in: 60...30 * 86_400))
        limits.timestampSkewMillis = Int64(try env.integer("WHISPER_TIMESTAMP_SKEW_MS",
                                                           default: Int(limits.timestampSkewMillis), in: 1000...86_400_000))
        limits.fetchPendingDefaultLimit = try env.integer("WHISPER_FETCH_PENDING_DEFAULT_LIMIT",
                                                          default: limits.fetchPendingDefaultLimit,
                                                          in: 1...limits.fetchPendingMaxLimit)
    }

    /// Rules that relate two settings.
    private func checkConsistency() throws(ConfigError) {
        // The listeners bind with SO_REUSEPORT (one socket per loop), so a second bind of the
        // same port succeeds and the kernel would split connections between the two listeners.
        if publicAddress.port != 0, publicAddress.port == adminAddress.port, publicAddress.overlaps(adminAddress) {
            throw .conflict(variable: "WHISPER_ADMIN_ADDR",
                            reason: "must not share a port with WHISPER_PUBLIC_ADDR (\(publicAddress)), got \(adminAddress)")
        }
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
        // A text message at the cap must fit in one WebSocket message, base64 and envelope aside.
        let textBase64 = Base64.encodedLength(forByteCount: limits.maxTextCiphertextBytes)
        if textBase64 >= message {
            throw .conflict(variable: "WHISPER_MAX_TEXT_BYTES",
                            reason: "its ciphertext in base64 (\(textBase64) bytes) must fit in WHISPER_MAX_WS_MESSAGE_BYTES (\(message)), got \(limits.maxTextPlaintextBytes)")
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

    /// `WHISPER_REDIS_URL`, `WHISPER_REDIS_TLS_*`, `WHISPER_REDIS_CLUSTER` and the replica `WAIT`, all always read (see
    /// `knownVariables`).
    private static func loadRedis(_ env: EnvironmentReader) throws(ConfigError) -> RedisEndpoint {
        var redis = try env.trimmed("WHISPER_REDIS_URL").map { text throws(ConfigError) in
            try RedisEndpoint.parse(text)
        } ?? RedisEndpoint(host: "127.0.0.1")
        redis.tls = try RedisTLSSettings.load(from: env, enabled: redis.tls != nil)
        redis.cluster = try env.bool("WHISPER_REDIS_CLUSTER", default: false)
        redis.minReplicas = try env.integer("WHISPER_REDIS_MIN_REPLICAS", default: 0, in: 0...16)
        // Below the 5 s command timeout, past which a connection counts as broken.
        redis.replicaWaitTimeoutMillis = try env.integer("WHISPER_REDIS_WAIT_TIMEOUT_MS", default: 500, in: 1...4000)
        if redis.cluster, redis.database != 0 {
            throw .conflict(variable: "WHISPER_REDIS_URL",
                            reason: "Redis Cluster has only database 0; drop /\(redis.database) from the URL or unset WHISPER_REDIS_CLUSTER")
        }
        if !redis.cluster, !redis.additionalNodes.isEmpty {
            throw .conflict(variable: "WHISPER_REDIS_URL",
                            reason: "several hosts are the seeds of a Redis Cluster: set WHISPER_REDIS_CLUSTER=1, or give one host")
        }
        return redis
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
}
