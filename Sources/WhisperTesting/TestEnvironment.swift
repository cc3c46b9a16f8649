import Foundation
import WhisperOps
import WhisperServer

/// The throwaway PostgreSQL and Redis that `scripts/test` starts. Integration tests fail
/// loudly, never skip, when these are missing.
public enum TestEnvironment {
    public static var databaseURL: String {
        get throws { try require("WHISPER_TEST_DATABASE_URL") }
    }
    public static var redisURL: String {
        get throws { try require("WHISPER_TEST_REDIS_URL") }
    }

    static func require(_ name: String) throws -> String {
        guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else {
            throw MissingEnvironment(name: name)
        }
        return value
    }

    public struct MissingEnvironment: Error, CustomStringConvertible {
        let name: String
        public var description: String { "\(name) is not set: run the suite through scripts/test" }
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

    public init(_ overrides: [String: String] = [:]) async throws {
        var environment = [
            "WHISPER_PUBLIC_ADDR": "127.0.0.1:0",
            "WHISPER_ADMIN_ADDR": "127.0.0.1:0",
            "WHISPER_DATABASE_URL": try TestEnvironment.databaseURL,
            "WHISPER_REDIS_URL": try TestEnvironment.redisURL,
            "WHISPER_THREADS": "2",
            "WHISPER_LOG_LEVEL": "warn",
            "WHISPER_REDIS_PREFIX": "test-\(UUID().uuidString.prefix(8).lowercased()):",
        ]
        environment.merge(overrides) { $1 }
        let config = try ServerConfig.load(environment: environment)
        log = Log(level: config.logLevel)
        server = try WhisperServer(config: config, log: log, metrics: WhisperMetrics(registry: MetricsRegistry()))
        if config.databaseURL != nil { _ = try await server.migrate() }
    }

    public func stop() { server.shutdown() }
}
