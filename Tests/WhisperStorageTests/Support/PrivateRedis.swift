import Foundation

/// A Redis instance owned by one test, which may stop and restart it. Through
/// scripts/services when `WHISPER_SERVICES` is set, else with redis-server directly.
final class PrivateRedis: @unchecked Sendable {
    let directory: String
    let port: Int
    private(set) var url: String

    private init(directory: String, port: Int) {
        self.directory = directory
        self.port = port
        url = "redis://127.0.0.1:\(port)/0"
    }

    static func start() async throws -> PrivateRedis {
        let port = try await ProcessRunner.freePort()
        let directory = "/tmp/whisper-storage-tests/redis-" + UUID().uuidString.lowercased()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let instance = PrivateRedis(directory: directory, port: port)
        try await instance.startServer()
        return instance
    }

    func startServer() async throws {
        if let cli = TestEnvironment.servicesCLI {
            let printed = try await ProcessRunner.run(cli, ["redis", "start", directory, String(port)])
            if let line = printed.split(separator: "\n").last(where: { $0.hasPrefix("redis://") }) {
                url = String(line)
            }
            return
        }
        try await ProcessRunner.run("/usr/bin/redis-server", [
            "--bind", "127.0.0.1", "--port", String(port), "--dir", directory,
            "--daemonize", "yes", "--pidfile", directory + "/redis.pid", "--logfile", directory + "/redis.log",
            "--save", "", "--appendonly", "no",
        ])
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if (try? await ProcessRunner.run("/usr/bin/redis-cli", ["-p", String(port), "ping"]))?.contains("PONG") == true {
                return
            }
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        throw TestSetupError(description: "redis-server on port \(port) did not answer PING")
    }

    func stopServer() async throws {
        if let cli = TestEnvironment.servicesCLI {
            try await ProcessRunner.run(cli, ["redis", "stop", directory])
            return
        }
        _ = try? await ProcessRunner.run("/usr/bin/redis-cli", ["-p", String(port), "shutdown", "nosave"])
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if (try? await ProcessRunner.run("/usr/bin/redis-cli", ["-p", String(port), "ping"])) == nil { return }
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        throw TestSetupError(description: "redis-server on port \(port) did not stop")
    }

    func destroy() async {
        try? await stopServer()
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// Runs `body` with a private Redis and deletes it afterwards.
func withPrivateRedis(_ body: (PrivateRedis) async throws -> Void) async throws {
    let server = try await PrivateRedis.start()
    do {
        try await body(server)
    } catch {
        await server.destroy()
        throw error
    }
    await server.destroy()
}
