import Foundation

/// A PostgreSQL instance owned by one test, which may stop and restart it. Through
/// scripts/services when `WHISPER_SERVICES` is set, else with initdb/pg_ctl directly.
final class PrivatePostgres: @unchecked Sendable {
    let directory: String
    let port: Int
    private(set) var url: String

    private static let binaries = "/usr/lib/postgresql/15/bin"

    private init(directory: String, port: Int, url: String) {
        self.directory = directory
        self.port = port
        self.url = url
    }

    static func start() async throws -> PrivatePostgres {
        let port = try await ProcessRunner.freePort()
        let directory = "/tmp/whisper-storage-tests/pg-" + UUID().uuidString.lowercased()
        try FileManager.default.createDirectory(atPath: "/tmp/whisper-storage-tests", withIntermediateDirectories: true)
        let instance = PrivatePostgres(directory: directory, port: port, url: "")
        if TestEnvironment.servicesCLI == nil {
            try await ProcessRunner.run("/usr/bin/install", ["-d", "-o", "postgres", "-g", "postgres", "-m", "700", directory])
            try await ProcessRunner.runAsPostgres(binaries + "/initdb",
                                            ["-D", directory, "-A", "trust", "-U", "postgres", "--no-sync"])
        }
        try await instance.startServer()
        return instance
    }

    /// Starts (or restarts) the server on the same port and data directory.
    func startServer() async throws {
        if let cli = TestEnvironment.servicesCLI {
            let printed = try await ProcessRunner.run(cli, ["pg", "start", directory, String(port)])
            guard let line = printed.split(separator: "\n").last(where: { $0.hasPrefix("postgres") }) else {
                throw TestSetupError(description: "scripts/services pg start printed no URL: \(printed)")
            }
            url = String(line)
        } else {
            try await ProcessRunner.runAsPostgres(Self.binaries + "/pg_ctl", [
                "-D", directory, "-l", directory + "/server.log", "-w", "-t", "60",
                "-o", "-p \(port) -k \(directory) -c listen_addresses=127.0.0.1 -c fsync=off",
                "start",
            ])
            url = "postgresql://postgres@127.0.0.1:\(port)/postgres"
        }
    }

    func stopServer() async throws {
        if let cli = TestEnvironment.servicesCLI {
            try await ProcessRunner.run(cli, ["pg", "stop", directory])
        } else {
            try await ProcessRunner.runAsPostgres(Self.binaries + "/pg_ctl", ["-D", directory, "-m", "fast", "-w", "stop"])
        }
    }

    /// Stops the server if running and deletes its data.
    func destroy() async {
        try? await stopServer()
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// Runs `body` with a private PostgreSQL and deletes it afterwards.
func withPrivatePostgres(_ body: (PrivatePostgres) async throws -> Void) async throws {
    let server = try await PrivatePostgres.start()
    do {
        try await body(server)
    } catch {
        await server.destroy()
        throw error
    }
    await server.destroy()
}
