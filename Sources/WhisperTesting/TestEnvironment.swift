import Foundation
import WhisperOps
import WhisperServer
import WhisperStorage

/// What `scripts/test` sets up for the suite: a throwaway PostgreSQL and Redis
/// (`WHISPER_TEST_DATABASE_URL`, `WHISPER_TEST_REDIS_URL`), a LocalStack S3
/// (`WHISPER_TEST_S3_ENDPOINT`, `WHISPER_TEST_S3_BUCKET`) and the path of scripts/services
/// (`WHISPER_SERVICES`) for private servers. The one place tests read their environment.
///
/// A missing variable throws `MissingEnvironment`, which fails the test with a message saying
/// how to run the suite: integration tests fail loudly, never skip.
public enum TestEnvironment {
    public static var databaseURL: String {
        get throws { try require("WHISPER_TEST_DATABASE_URL", example: "postgresql://whisper@127.0.0.1:PORT/whisper") }
    }
    public static var redisURL: String {
        get throws { try require("WHISPER_TEST_REDIS_URL", example: "redis://127.0.0.1:PORT/0") }
    }
    /// The seeds of the 3-primary + 3-replica Redis Cluster (`scripts/test`).
    public static var redisClusterURL: String {
        get throws { try require("WHISPER_TEST_REDIS_CLUSTER_URL", example: "redis://127.0.0.1:PORT1,127.0.0.1:PORT2/") }
    }
    /// The test servers run on the Redis Cluster (`WHISPER_TEST_SERVERS_ON_CLUSTER=1`, the
    /// cluster pass of scripts/test).
    public static var serversOnCluster: Bool { ProcessInfo.processInfo.environment["WHISPER_TEST_SERVERS_ON_CLUSTER"] == "1" }
    /// The TLS-only test Redis (`scripts/test`; client certificates optional) and the directory
    /// of its throwaway CA (`ca.pem`) and a client certificate it accepts (`client.pem`, `client.key`).
    public static var redisTLSURL: String {
        get throws { try require("WHISPER_TEST_REDIS_TLS_URL", example: "rediss://127.0.0.1:PORT/0") }
    }
    public static var redisTLSDirectory: String {
        get throws { try require("WHISPER_TEST_REDIS_TLS_DIR", example: "/tmp/…/redis-tls/tls") }
    }
    /// A second TLS-only test Redis that requires a client certificate, with its own CA.
    public static var redisMutualTLSURL: String {
        get throws { try require("WHISPER_TEST_REDIS_MTLS_URL", example: "rediss://127.0.0.1:PORT/0") }
    }
    public static var redisMutualTLSDirectory: String {
        get throws { try require("WHISPER_TEST_REDIS_MTLS_DIR", example: "/tmp/…/redis-mtls/tls") }
    }
    /// A Redis with one replica attached (`scripts/test`), and the replica's pid file: a test
    /// pauses the replica (SIGSTOP) to see `WAIT` come back short.
    public static var redisReplicatedURL: String {
        get throws { try require("WHISPER_TEST_REDIS_REPLICATED_URL", example: "redis://127.0.0.1:PORT/0") }
    }
    public static var redisReplicaPIDFile: String {
        get throws { try require("WHISPER_TEST_REDIS_REPLICA_PID_FILE", example: "/tmp/…/redis-replica/redis.pid") }
    }
    /// scripts/services, which starts and stops private PostgreSQL and Redis servers.
    public static var servicesScript: String {
        get throws { try require("WHISPER_SERVICES", example: "$PWD/scripts/services") }
    }

    /// The LocalStack S3 of this run (`scripts/test` starts it, signature checks on, and creates
    /// the bucket). Its credentials are LocalStack's fixed `test`/`test`; addressing is path-style.
    public static var s3Endpoint: String {
        get throws { try require("WHISPER_TEST_S3_ENDPOINT", example: "http://127.0.0.1:PORT") }
    }
    public static var s3Bucket: String {
        get throws { try require("WHISPER_TEST_S3_BUCKET", example: "whisper-test") }
    }

    static func require(_ name: String, example: String) throws(MissingEnvironment) -> String {
        guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else {
            throw MissingEnvironment(name: name, example: example)
        }
        return value
    }

    public struct MissingEnvironment: Error, CustomStringConvertible {
        let name: String
        let example: String
        public var description: String {
            "\(name) is not set: run the tests through scripts/test (e.g. `scripts/test --filter WhisperStorageTests`), "
                + "which starts PostgreSQL and Redis and exports it, or export \(name)=\(example) yourself"
        }
    }

    /// Log sink for storage objects under test; prints when WHISPER_TEST_LOG=1.
    public static let log: StorageLog = { level, message in
        if ProcessInfo.processInfo.environment["WHISPER_TEST_LOG"] == "1" {
            FileHandle.standardError.write(Data("[storage \(level.rawValue)] \(message)\n".utf8))
        }
    }

    /// `prefix_` and 12 random lower-case hex digits: a schema, key prefix or user name no
    /// other test (or earlier run) uses.
    public static func uniqueName(_ prefix: String) -> String {
        prefix + "_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
    }
}

/// A whole server in this process on ephemeral loopback ports, against the test
/// PostgreSQL and Redis.
///
/// Each server gets its own Redis key prefix (unless the test passes
/// `WHISPER_REDIS_PREFIX`, e.g. to put two servers in one cluster), so sessions, challenges,
/// rate limits and revocation channels of concurrently running tests never meet.
public final class TestServer: Sendable {
    public let server: WhisperServer
    public let log: Log
    public var config: ServerConfig { server.config }
    public var publicPort: Int { server.publicPort }
    public var adminPort: Int { server.adminPort }

    /// `logSink` captures the server's log (e.g. a `MemoryLogSink`); by default it goes to stdout.
    public init(_ overrides: [String: String] = [:], logSink: (any LogSink)? = nil) async throws {
        var environment = try Self.environment(publicAddress: "127.0.0.1:0", adminAddress: "127.0.0.1:0")
        environment.merge(overrides) { $1 }
        let config = try ServerConfig.load(environment: environment)
        log = Log(level: config.logLevel, sink: logSink ?? FileDescriptorLogSink.standardOutput)
        server = try WhisperServer(config: config, log: log, metrics: WhisperMetrics(registry: MetricsRegistry()))
        if config.databaseURL != nil { _ = try await server.migrate() }
        // A node takes traffic once `/ready` says so (its subscriber delivers its canary): the
        // tests wait the same way, so a notice published right after start (a revocation) is
        // not lost to a subscription still being made. A server the test means to keep
        // unready (no Redis) is used after 5 s anyway.
        let admin = server.adminPort
        _ = await eventually(within: 5) { (try? TestHTTP.get(port: admin, "/ready"))?.status == 200 }
    }

    public func stop() { server.shutdown() }

    /// The configuration a test server starts from (here or as a process, `ServerProcess`):
    /// the test PostgreSQL and Redis, a Redis key prefix of its own, no drain grace.
    /// With `WHISPER_TEST_SERVERS_ON_CLUSTER=1` (scripts/test's cluster pass) the servers run on
    /// the 3-primary + 3-replica Redis Cluster instead of the standalone Redis.
    static func environment(publicAddress: String, adminAddress: String) throws -> [String: String] {
        var environment = [
            "WHISPER_PUBLIC_ADDR": publicAddress,
            "WHISPER_ADMIN_ADDR": adminAddress,
            "WHISPER_DATABASE_URL": try TestEnvironment.databaseURL,
            "WHISPER_REDIS_URL": try TestEnvironment.redisURL,
            "WHISPER_THREADS": "2",
            "WHISPER_LOG_LEVEL": "warn",
            "WHISPER_REDIS_PREFIX": "test-\(UUID().uuidString.prefix(8).lowercased()):",
            // A drain in a test closes at once unless the test asks for a grace or a window.
            "WHISPER_DRAIN_GRACE_SECONDS": "0",
            "WHISPER_DRAIN_WINDOW_SECONDS": "0",
        ]
        if TestEnvironment.serversOnCluster {
            environment["WHISPER_REDIS_URL"] = try TestEnvironment.redisClusterURL
            environment["WHISPER_REDIS_CLUSTER"] = "1"
        }
        return environment
    }
}
