import Testing
import WhisperProtocol
@testable import WhisperOps

@Suite struct ServerConfigTests {
    @Test func emptyEnvironment_yieldsDocumentedDefaults() throws {
        let config = try loadConfig([:])
        #expect(config.publicAddress == SocketAddressSpec(host: "0.0.0.0", port: 8080))
        #expect(config.adminAddress == SocketAddressSpec(host: "127.0.0.1", port: 9090))
        #expect(config.databaseURL == nil)
        #expect(config.redis == RedisEndpoint(host: "127.0.0.1", port: 6379, database: 0))
        #expect(config.redisPrefix == "whisper:")
        #expect(config.adminToken == nil)
        #expect(config.tls == nil)
        #expect(config.turn == nil)
        #expect(config.s3 == nil)
        #expect(config.logLevel == .info)
        #expect(config.threads == 3)
        #expect(config.migrateOnStart == false)
        #expect(config.postgresPoolSize == 4)
        #expect(config.postgresLoopSessions == 2)
        #expect(config.limits.webSocketIdleTimeoutSeconds == 90)
        #expect(config.limits.webSocketPingIntervalSeconds == 30)
        #expect(config.limits.maxWebSocketMessageBytes == 512_000)
        #expect(config.limits.outputBufferLimitBytes == 8 * 1024 * 1024)
        #expect(config.limits.httpRequestTimeoutSeconds == 10)
        #expect(config.drainTimeoutSeconds == 25)
        #expect(config.testEcho == false)
        #expect(config.limits.challengeTTLSeconds == 60)
        #expect(config.limits.sessionTTLSeconds == 604_800)
        #expect(config.limits == Limits.default)
        #expect(config.rateLimits == RateLimits.defaults)
        #expect(config.unrecognizedVariables.isEmpty)
    }

    @Test func everyVariable_isParsed() throws {
        let config = try loadConfig([
            "WHISPER_PUBLIC_ADDR": "[::]:0",
            "WHISPER_ADMIN_ADDR": "localhost:9191",
            "WHISPER_DATABASE_URL": "postgresql://whisper:pw@db:5432/whisper?sslmode=disable",
            "WHISPER_REDIS_URL": "redis://:s3cret@redis.internal:6380/2",
            "WHISPER_REDIS_PREFIX": "test-1:",
            "WHISPER_ADMIN_TOKEN": "admin-token-123",
            "WHISPER_TLS_CERT": "/etc/whisper/cert.pem",
            "WHISPER_TLS_KEY": "/etc/whisper/key.pem",
            "WHISPER_TURN_SECRET": "turn-secret",
            "WHISPER_TURN_URLS": "turn:turn.example.com:3478?transport=udp, turns:turn.example.com:5349",
            "WHISPER_S3_ENDPOINT": "http://127.0.0.1:4566/",
            "WHISPER_S3_REGION": "eu-west-1",
            "WHISPER_S3_BUCKET": "whisper-attachments",
            "WHISPER_S3_ACCESS_KEY": "test",
            "WHISPER_S3_SECRET_KEY": "s3-secret",
            "WHISPER_S3_PATH_STYLE": "yes",
            "WHISPER_LOG_LEVEL": "DEBUG",
            "WHISPER_THREADS": "8",
            "WHISPER_MIGRATE_ON_START": "true",
            "WHISPER_PG_POOL_SIZE": "16",
            "WHISPER_PG_LOOP_SESSIONS": "0",
            "WHISPER_WS_IDLE_TIMEOUT_SECONDS": "120",
            "WHISPER_WS_PING_INTERVAL_SECONDS": "45",
            "WHISPER_MAX_WS_MESSAGE_BYTES": "1000000",
            "WHISPER_OUTPUT_BUFFER_LIMIT_BYTES": "8000000",
            "WHISPER_HTTP_REQUEST_TIMEOUT_SECONDS": "5",
            "WHISPER_HTTP_IDLE_TIMEOUT_SECONDS": "30",
            "WHISPER_MAX_PENDING_PER_USER": "77",
            "WHISPER_MAX_GROUP_MEMBERS": "12",
            "WHISPER_DRAIN_TIMEOUT_SECONDS": "0",
            "WHISPER_DRAIN_GRACE_SECONDS": "0",
            "WHISPER_DRAIN_WINDOW_SECONDS": "7",
            "WHISPER_TEST_ECHO": "1",
            "WHISPER_CHALLENGE_TTL_SECONDS": "2",
            "WHISPER_SESSION_TTL_SECONDS": "3600",
            "WHISPER_RATE_SEND": "5/1",
            "WHISPER_RATE_SEND_IP": "50/1",
        ])
        #expect(config.publicAddress == SocketAddressSpec(host: "::", port: 0))
        #expect(config.adminAddress == SocketAddressSpec(host: "localhost", port: 9191))
        #expect(config.databaseURL == "postgresql://whisper:pw@db:5432/whisper?sslmode=disable")
        #expect(config.redis == RedisEndpoint(host: "redis.internal", port: 6380, database: 2,
                                              password: Secret("s3cret")))
        #expect(config.redisPrefix == "test-1:")
        #expect(config.adminToken?.unredacted == "admin-token-123")
        #expect(config.tls == TLSFiles(certificatePath: "/etc/whisper/cert.pem", keyPath: "/etc/whisper/key.pem"))
        #expect(config.turn == TurnSettings(secret: Secret("turn-secret"), urls: [
            "turn:turn.example.com:3478?transport=udp", "turns:turn.example.com:5349",
        ]))
        #expect(config.s3 == S3Settings(endpoint: "http://127.0.0.1:4566", region: "eu-west-1",
                                        bucket: "whisper-attachments", accessKey: Secret("test"),
                                        secretKey: Secret("s3-secret"), pathStyle: true))
        #expect(config.logLevel == .debug)
        #expect(config.threads == 8)
        #expect(config.migrateOnStart)
        #expect(config.postgresPoolSize == 16)
        #expect(config.postgresLoopSessions == 0)
        #expect(config.limits.webSocketIdleTimeoutSeconds == 120)
        #expect(config.limits.webSocketPingIntervalSeconds == 45)
        #expect(config.limits.maxWebSocketMessageBytes == 1_000_000)
        #expect(config.limits.outputBufferLimitBytes == 8_000_000)
        #expect(config.limits.httpRequestTimeoutSeconds == 5)
        #expect(config.limits.httpIdleTimeoutSeconds == 30)
        #expect(config.limits.maxPendingPerUser == 77)
        #expect(config.limits.maxGroupMembers == 12)
        #expect(config.drainTimeoutSeconds == 0)
        #expect(config.limits.drainGraceSeconds == 0)
        #expect(config.limits.drainWindowSeconds == 7)
        #expect(config.testEcho)
        #expect(config.limits.challengeTTLSeconds == 2)
        #expect(config.limits.sessionTTLSeconds == 3600)
        #expect(config.rateLimits[.send, .identity] == RateLimit(count: 5, windowSeconds: 1))
        #expect(config.rateLimits[.send, .ip] == RateLimit(count: 50, windowSeconds: 1))
        #expect(config.rateLimits[.fetch, .identity] == RateLimits.defaults[.fetch, .identity])
        #expect(config.unrecognizedVariables.isEmpty)
    }

    @Test func callRingTimeout_defaultsTo60Seconds_andAccepts1To600() throws {
        #expect(try loadConfig([:]).limits.callRingTimeoutSeconds == 60)
        #expect(try loadConfig(["WHISPER_CALL_RING_TIMEOUT_SECONDS": "2"]).limits.callRingTimeoutSeconds == 2)
        #expect(try loadConfig(["WHISPER_CALL_RING_TIMEOUT_SECONDS": "600"]).limits.callRingTimeoutSeconds == 600)
        for bad in ["0", "601", "1.5"] {
            #expect(configError(["WHISPER_CALL_RING_TIMEOUT_SECONDS": bad])
                        == .invalid("WHISPER_CALL_RING_TIMEOUT_SECONDS", expected: "a positive integer up to 600", got: bad))
        }
    }

    @Test func callConfirmTimeout_defaultsTo2Seconds_andAccepts100To60000Millis() throws {
        #expect(try loadConfig([:]).limits.callConfirmTimeoutMillis == 2_000)
        #expect(try loadConfig(["WHISPER_CALL_CONFIRM_TIMEOUT_MS": "100"]).limits.callConfirmTimeoutMillis == 100)
        #expect(try loadConfig(["WHISPER_CALL_CONFIRM_TIMEOUT_MS": "60000"]).limits.callConfirmTimeoutMillis == 60_000)
        for bad in ["99", "60001", "2s"] {
            #expect(configError(["WHISPER_CALL_CONFIRM_TIMEOUT_MS": bad])
                        == .invalid("WHISPER_CALL_CONFIRM_TIMEOUT_MS", expected: "an integer from 100 to 60000", got: bad))
        }
    }

    @Test(arguments: ["1", "true", "TRUE", "Yes", " yes "])
    func booleans_acceptTrueSpellings(_ spelling: String) throws {
        #expect(try loadConfig(["WHISPER_MIGRATE_ON_START": spelling]).migrateOnStart == true)
    }

    @Test(arguments: ["0", "false", "False", "NO"])
    func booleans_acceptFalseSpellings(_ spelling: String) throws {
        #expect(try loadConfig(["WHISPER_TEST_ECHO": spelling]).testEcho == false)
    }

    @Test func emptyValue_countsAsUnset() throws {
        let config = try loadConfig(["WHISPER_THREADS": "", "WHISPER_ADMIN_TOKEN": "", "WHISPER_LOG_LEVEL": "  "])
        #expect(config.threads == 3)
        #expect(config.adminToken == nil)
        #expect(config.logLevel == .info)
    }

    @Test(arguments: [
        ("WHISPER_THREADS", "x", #"WHISPER_THREADS: expected a positive integer up to 1024, got "x""#),
        ("WHISPER_THREADS", "0", #"WHISPER_THREADS: expected a positive integer up to 1024, got "0""#),
        ("WHISPER_THREADS", "-2", #"WHISPER_THREADS: expected a positive integer up to 1024, got "-2""#),
        ("WHISPER_THREADS", "99999999999999999999999", #"WHISPER_THREADS: expected a positive integer up to 1024, got "99999999999999999999999""#),
        ("WHISPER_PG_POOL_SIZE", "4.5", #"WHISPER_PG_POOL_SIZE: expected a positive integer up to 256, got "4.5""#),
        ("WHISPER_DRAIN_TIMEOUT_SECONDS", "4000", #"WHISPER_DRAIN_TIMEOUT_SECONDS: expected an integer from 0 to 3600, got "4000""#),
        ("WHISPER_DRAIN_GRACE_SECONDS", "601", #"WHISPER_DRAIN_GRACE_SECONDS: expected an integer from 0 to 600, got "601""#),
        ("WHISPER_DRAIN_WINDOW_SECONDS", "-1", #"WHISPER_DRAIN_WINDOW_SECONDS: expected an integer from 0 to 600, got "-1""#),
        ("WHISPER_CHALLENGE_TTL_SECONDS", "0", #"WHISPER_CHALLENGE_TTL_SECONDS: expected a positive integer up to 3600, got "0""#),
        ("WHISPER_SESSION_TTL_SECONDS", "59", #"WHISPER_SESSION_TTL_SECONDS: expected an integer from 60 to 2592000, got "59""#),
        ("WHISPER_MAX_WS_MESSAGE_BYTES", "100", #"WHISPER_MAX_WS_MESSAGE_BYTES: expected an integer from 1024 to 67108864, got "100""#),
        ("WHISPER_MIGRATE_ON_START", "maybe", #"WHISPER_MIGRATE_ON_START: expected one of 1|true|yes|0|false|no, got "maybe""#),
        ("WHISPER_S3_PATH_STYLE", "on", #"WHISPER_S3_PATH_STYLE: expected one of 1|true|yes|0|false|no, got "on""#),
        ("WHISPER_TEST_ECHO", "2", #"WHISPER_TEST_ECHO: expected one of 1|true|yes|0|false|no, got "2""#),
        ("WHISPER_LOG_LEVEL", "verbose", #"WHISPER_LOG_LEVEL: expected one of debug|info|warn|error, got "verbose""#),
        ("WHISPER_PUBLIC_ADDR", "8080", #"WHISPER_PUBLIC_ADDR: expected host:port or [IPv6]:port with port 0-65535, got "8080""#),
        ("WHISPER_ADMIN_ADDR", "127.0.0.1:70000", #"WHISPER_ADMIN_ADDR: expected host:port or [IPv6]:port with port 0-65535, got "127.0.0.1:70000""#),
        ("WHISPER_DATABASE_URL", "mysql://u:hunter2@db/x", #"WHISPER_DATABASE_URL: expected a postgres:// or postgresql:// URI, got "mysql://u:***@db/x""#),
        ("WHISPER_REDIS_URL", "http://:pw@redis:6379", #"WHISPER_REDIS_URL: expected redis[s]://[:password@]host[:port][,host[:port]…][/db], got "http://:***@redis:6379""#),
        ("WHISPER_REDIS_PREFIX", "has space", #"WHISPER_REDIS_PREFIX: expected up to 64 printable ASCII characters without spaces, got "has space""#),
        ("WHISPER_TURN_URLS", "http://turn", "WHISPER_TURN_SECRET: not set; required when WHISPER_TURN_URLS is set"),
        ("WHISPER_TLS_CERT", "/c.pem", "WHISPER_TLS_KEY: not set; required when WHISPER_TLS_CERT is set"),
        ("WHISPER_TLS_KEY", "/k.pem", "WHISPER_TLS_CERT: not set; required when WHISPER_TLS_KEY is set"),
        ("WHISPER_S3_BUCKET", "b", #"WHISPER_S3_BUCKET: expected a bucket name of 3-63 lowercase letters, digits, '.', '-', got "b""#),
        ("WHISPER_S3_ENDPOINT", "ftp://x", #"WHISPER_S3_ENDPOINT: expected an http:// or https:// URL, got "ftp://x""#),
        ("WHISPER_S3_PUBLIC_ENDPOINT", "s3.example.org", #"WHISPER_S3_PUBLIC_ENDPOINT: expected an http:// or https:// URL, got "s3.example.org""#),
        ("WHISPER_RATE_SEND", "10", #"WHISPER_RATE_SEND: expected <count>/<seconds> with both positive integers, got "10""#),
        ("WHISPER_RATE_TYPING_IP", "0/10", #"WHISPER_RATE_TYPING_IP: expected <count>/<seconds> with both positive integers, got "0/10""#),
    ] as [(String, String, String)])
    func badValue_failsWithOneLineNamingTheVariable(variable: String, value: String, expected: String) {
        let error = configError([variable: value])
        #expect(error?.description == expected)
        #expect(error?.description.contains("\n") == false)
    }

    @Test func turnURLs_mustUseATurnOrStunScheme() {
        let error = configError(["WHISPER_TURN_SECRET": "s", "WHISPER_TURN_URLS": "turn:a:3478,http://b"])
        #expect(error?.description == #"WHISPER_TURN_URLS: expected comma-separated turn:, turns: or stun: URIs, got "http://b""#)
    }

    @Test func turnSecretAlone_isRefused() {
        #expect(configError(["WHISPER_TURN_SECRET": "s"])?.variable == "WHISPER_TURN_URLS")
    }

    @Test func partialS3Settings_nameTheFirstMissingVariable() {
        #expect(configError(["WHISPER_S3_BUCKET": "bucket"])?.description
            == "WHISPER_S3_ACCESS_KEY: not set; required when other WHISPER_S3_* are set")
        #expect(configError(["WHISPER_S3_ACCESS_KEY": "k", "WHISPER_S3_SECRET_KEY": "s"])?.variable
            == "WHISPER_S3_BUCKET")
    }

    @Test func s3WithoutEndpoint_defaultsToAWSForTheRegion() throws {
        let config = try loadConfig([
            "WHISPER_S3_BUCKET": "bucket", "WHISPER_S3_ACCESS_KEY": "k", "WHISPER_S3_SECRET_KEY": "s",
        ])
        #expect(config.s3?.endpoint == "https://s3.us-east-1.amazonaws.com")
        #expect(config.s3?.publicEndpoint == "https://s3.us-east-1.amazonaws.com")
        #expect(config.s3?.region == "us-east-1")
        #expect(config.s3?.pathStyle == false)
    }

    @Test func s3PublicEndpoint_isSeparateFromTheServersOwn_andDefaultsToIt() throws {
        let base = ["WHISPER_S3_BUCKET": "bucket", "WHISPER_S3_ACCESS_KEY": "k", "WHISPER_S3_SECRET_KEY": "s",
                    "WHISPER_S3_ENDPOINT": "http://minio:9000"]
        let split = try loadConfig(base.merging(["WHISPER_S3_PUBLIC_ENDPOINT": "https://s3.example.org/"]) { $1 })
        #expect(split.s3?.endpoint == "http://minio:9000" && split.s3?.publicEndpoint == "https://s3.example.org")
        #expect(try loadConfig(base).s3?.publicEndpoint == "http://minio:9000")
    }

    @Test func pingInterval_mustBeBelowIdleTimeout() {
        let error = configError(["WHISPER_WS_IDLE_TIMEOUT_SECONDS": "30", "WHISPER_WS_PING_INTERVAL_SECONDS": "30"])
        #expect(error?.description
            == "WHISPER_WS_PING_INTERVAL_SECONDS: must be less than WHISPER_WS_IDLE_TIMEOUT_SECONDS (30), got 30")
    }

    /// The listeners use SO_REUSEPORT: the same port twice would bind, and split connections.
    @Test func publicAndAdmin_mayNotShareAPort() throws {
        let error = configError(["WHISPER_PUBLIC_ADDR": "0.0.0.0:7000", "WHISPER_ADMIN_ADDR": "127.0.0.1:7000"])
        #expect(error?.description == "WHISPER_ADMIN_ADDR: must not share a port with WHISPER_PUBLIC_ADDR (0.0.0.0:7000), got 127.0.0.1:7000")
        #expect(configError(["WHISPER_PUBLIC_ADDR": "127.0.0.1:7000", "WHISPER_ADMIN_ADDR": "127.0.0.1:7000"]) != nil)
        // Two distinct hosts may use one port, and port 0 twice is two ephemeral ports.
        #expect(try loadConfig(["WHISPER_PUBLIC_ADDR": "10.0.0.5:7000", "WHISPER_ADMIN_ADDR": "127.0.0.1:7000"]).adminAddress.port == 7000)
        #expect(try loadConfig(["WHISPER_PUBLIC_ADDR": "127.0.0.1:0", "WHISPER_ADMIN_ADDR": "127.0.0.1:0"]).adminAddress.port == 0)
    }

    @Test func shortIdleTimeout_alone_lowersThePingDefault() throws {
        let config = try loadConfig(["WHISPER_WS_IDLE_TIMEOUT_SECONDS": "6"])
        #expect(config.limits.webSocketPingIntervalSeconds == 2)
    }

    @Test func outputBufferLimit_mustHoldTwoMaximumMessages() throws {
        let error = configError(["WHISPER_OUTPUT_BUFFER_LIMIT_BYTES": "1000"])
        #expect(error?.description
            == "WHISPER_OUTPUT_BUFFER_LIMIT_BYTES: must be at least twice WHISPER_MAX_WS_MESSAGE_BYTES (1024000), got 1000")
        let raised = try loadConfig(["WHISPER_MAX_WS_MESSAGE_BYTES": "5000000"])
        #expect(raised.limits.outputBufferLimitBytes == 10_000_000)
    }

    @Test func outputBufferLimit_mustHoldAFullContactsBackupDownload() throws {
        let largest = Limits.default.maxHTTPResponseBytes
        #expect(largest == 6_666_956)
        #expect(try loadConfig(["WHISPER_OUTPUT_BUFFER_LIMIT_BYTES": String(largest)]).limits.outputBufferLimitBytes == largest)
        #expect(configError(["WHISPER_OUTPUT_BUFFER_LIMIT_BYTES": String(largest - 1)])?.description
            == "WHISPER_OUTPUT_BUFFER_LIMIT_BYTES: must hold the largest HTTP response, a full contacts backup (6666956 bytes), got 6666955")
    }

    @Test func rediss_turnsOnTLSWithItsFiles() throws {
        let config = try loadConfig(["WHISPER_REDIS_URL": "rediss://relay:pw@cache:6380/0",
                                     "WHISPER_REDIS_TLS_CA_FILE": "/etc/redis-ca.pem",
                                     "WHISPER_REDIS_TLS_CERT_FILE": "/etc/c.pem", "WHISPER_REDIS_TLS_KEY_FILE": "/etc/k.pem"])
        #expect(config.redis.tls == RedisTLSSettings(caFile: "/etc/redis-ca.pem", certificateFile: "/etc/c.pem",
                                                     keyFile: "/etc/k.pem"))
        #expect(config.redis.description == "rediss://relay:***@cache:6380/0")
        #expect(config.unrecognizedVariables.isEmpty)
        #expect(try loadConfig(["WHISPER_REDIS_URL": "rediss://cache"]).redis.tls == RedisTLSSettings())
        #expect(try loadConfig(["WHISPER_REDIS_URL": "redis://cache"]).redis.tls == nil)
    }

    @Test func redisTLSFiles_withoutRediss_orHalfAClientCertificate_areRefused() {
        #expect(configError(["WHISPER_REDIS_URL": "redis://cache", "WHISPER_REDIS_TLS_CA_FILE": "/ca.pem"])?.description
            == "WHISPER_REDIS_URL: WHISPER_REDIS_TLS_* is set but the URL is redis://; use rediss:// for TLS")
        #expect(configError(["WHISPER_REDIS_URL": "rediss://cache", "WHISPER_REDIS_TLS_CERT_FILE": "/c.pem"])?.variable
            == "WHISPER_REDIS_TLS_KEY_FILE")
        #expect(configError(["WHISPER_REDIS_URL": "rediss://cache", "WHISPER_REDIS_TLS_KEY_FILE": "/k.pem"])?.variable
            == "WHISPER_REDIS_TLS_CERT_FILE")
    }

    @Test func redisCluster_readsTheSeeds_andIsKnown() throws {
        let config = try loadConfig(["WHISPER_REDIS_URL": "redis://:pw@10.0.0.1:7000,10.0.0.2:7001,[::1]/",
                                     "WHISPER_REDIS_CLUSTER": "1"])
        #expect(config.redis.cluster)
        #expect(config.redis.host == "10.0.0.1" && config.redis.port == 7000)
        #expect(config.redis.additionalNodes == [RedisEndpoint.Node(host: "10.0.0.2", port: 7001), RedisEndpoint.Node(host: "::1")])
        #expect(ServerConfig.knownVariables.contains("WHISPER_REDIS_CLUSTER"))
        #expect(try !loadConfig([:]).redis.cluster)
    }

    @Test func redisCluster_refusesADatabaseOtherThan0() {
        #expect(configError(["WHISPER_REDIS_URL": "redis://10.0.0.1:7000/2", "WHISPER_REDIS_CLUSTER": "1"])?.description
            == "WHISPER_REDIS_URL: Redis Cluster has only database 0; drop /2 from the URL or unset WHISPER_REDIS_CLUSTER")
    }

    @Test func severalRedisHosts_withoutCluster_areRefused() {
        #expect(configError(["WHISPER_REDIS_URL": "redis://10.0.0.1:7000,10.0.0.2:7000/"])?.description
            == "WHISPER_REDIS_URL: several hosts are the seeds of a Redis Cluster: set WHISPER_REDIS_CLUSTER=1, or give one host")
    }

    @Test func unknownWhisperVariable_isReportedNotFatal() throws {
        let config = try loadConfig(["WHISPER_PUBLC_ADDR": "x", "WHISPER_APNS_KEY": "y", "HOME": "/root"])
        #expect(config.unrecognizedVariables == [UnknownVariable(name: "WHISPER_APNS_KEY", suggestion: nil),
                                                 UnknownVariable(name: "WHISPER_PUBLC_ADDR", suggestion: "WHISPER_PUBLIC_ADDR")])
    }

    @Test func errorValue_withControlCharacters_staysOnOneLine() {
        let error = configError(["WHISPER_THREADS": "4\nWHISPER_FAKE: ok\u{1B}[2J"])
        #expect(error?.description == #"WHISPER_THREADS: expected a positive integer up to 1024, got "4\nWHISPER_FAKE: ok\u{1b}[2J""#)
    }

    @Test func requireDatabaseURL_namesTheVariableWhenUnset() throws {
        let config = try loadConfig([:])
        #expect(throws: ConfigError.missing(variable: "WHISPER_DATABASE_URL",
                                            reason: "a postgres://user:password@host:port/db URI is required")) {
            try config.requireDatabaseURL()
        }
        let set = try loadConfig(["WHISPER_DATABASE_URL": "postgres://localhost/whisper"])
        #expect(try set.requireDatabaseURL() == "postgres://localhost/whisper")
    }

    @Test func load_withRealCoreCount_usesAtLeastOneThread() throws {
        #expect(try ServerConfig.load(environment: [:]).threads >= 1)
    }
}
