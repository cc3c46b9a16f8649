#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import ArgumentParser
import CLinux
import Foundation
import WhisperAdmin
import WhisperOps
import WhisperServer

/// `whisper-server`: configuration comes from the environment (docs/operations.md "Configuration"); this file
/// only parses the subcommand, wires the server and handles signals.
@main
struct WhisperServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "whisper-server",
        abstract: "Whisper relay: the WebSocket gateway and admin HTTP API of an end-to-end encrypted messenger.",
        discussion: "Configuration is read from WHISPER_* environment variables; see docs/operations.md.",
        version: "whisper-server \(BuildInfo.current)",
        subcommands: [Serve.self, Migrate.self, UpgradeRedis.self, AdminCommand.self]
    )

    /// ArgumentParser's `main`, except that a usage error exits 2, not 64 (docs/operations.md
    /// "Admin CLI"; `AdminExit.usageExitStatus`).
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            let status = exitCode(for: error).rawValue
            guard AdminExit.usageExitStatus(status) != status else { exit(withError: error) }
            FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
            Foundation.exit(AdminExit.usageExitStatus(status))
        }
    }
}

/// Loads the configuration or exits with one line naming the bad variable.
func loadConfig() -> ServerConfig {
    do {
        return try ServerConfig.load(environment: ProcessInfo.processInfo.environment)
    } catch {
        FileHandle.standardError.write(Data("whisper-server: \(error.description)\n".utf8))
        exit(2)
    }
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the relay until SIGTERM, then drain and exit 0.")

    func run() async throws {
        let config = loadConfig()
        let signals = clinux_termination_eventfd()
        let log = Log(level: config.logLevel)
        log.info("starting", ["threads": .int(config.threads), "public": .string(config.publicAddress.description),
                              "admin": .string(config.adminAddress.description), "echo": .bool(config.testEcho)])
        config.logStartupWarnings(log)
        let server: WhisperServer
        do {
            // Migrations first: WhisperServer's init already listens, and a client served before the
            // schema exists got INTERNAL_ERROR ("relation does not exist") although /health said 200.
            if config.migrateOnStart {
                guard let databaseURL = config.databaseURL else { throw ServerStartError.noDatabase }
                let applied = try await WhisperServer.migrate(databaseURL: databaseURL,
                                                              migrationsDirectory: config.migrationsDirectory, log: log)
                log.info("migrated", ["applied": .int(applied)])
            }
            // Never serve a Redis whose keys carry names this release does not read.
            try await WhisperServer.checkRedisKeyLayout(config: config, log: log)
            server = try WhisperServer(config: config, log: log, metrics: WhisperMetrics(registry: MetricsRegistry()))
        } catch {
            log.error("start_failed", ["reason": .string("\(error)")])
            FileHandle.standardError.write(Data("whisper-server: \(error)\n".utf8))
            throw ExitCode(1)
        }
        reloadTLSOnHangup(server)
        await SignalWatch.once("whisper-sigterm", fd: signals)
        log.info("draining")
        await server.drain()
        log.info("stopped")
    }

    /// Every SIGHUP reloads the TLS certificate and key (docs/operations.md "TLS").
    private func reloadTLSOnHangup(_ server: WhisperServer) {
        let fd = clinux_hangup_eventfd()
        guard fd >= 0 else { return }
        SignalWatch.every("whisper-sighup", fd: fd) { server.reloadTLS() }
    }

}

struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Apply pending PostgreSQL migrations and exit.")

    func run() async throws {
        let config = loadConfig()
        let log = Log(level: config.logLevel)
        config.logStartupWarnings(log)
        guard let url = config.databaseURL else {
            FileHandle.standardError.write(Data("whisper-server: WHISPER_DATABASE_URL: required for migrate\n".utf8))
            throw ExitCode(2)
        }
        do {
            let applied = try await WhisperServer.migrate(databaseURL: url, migrationsDirectory: config.migrationsDirectory,
                                                          log: log)
            log.info("migrated", ["applied": .int(applied)])
        } catch {
            log.error("migrate_failed", ["reason": .string("\(error)")])
            FileHandle.standardError.write(Data("whisper-server: migrate failed: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }
}

struct UpgradeRedis: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "upgrade-redis",
        abstract: "Rename the Redis keys of an older release to this release's key layout and exit.",
        discussion: "Stop every node first; docs/operations.md \"Upgrading to key layout 2\".")

    func run() async throws {
        let config = loadConfig()
        let log = Log(level: config.logLevel)
        config.logStartupWarnings(log)
        do {
            let report = try await WhisperServer.upgradeRedisKeys(config: config, log: log)
            print("scanned \(report.scanned) keys, renamed \(report.renamed); key layout 2")
        } catch {
            log.error("upgrade_redis_failed", ["reason": .string("\(error)")])
            FileHandle.standardError.write(Data("whisper-server: upgrade-redis failed: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }
}
