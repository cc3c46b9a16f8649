import Foundation

/// A PostgreSQL or Redis of a test's own on 127.0.0.1, started through `scripts/services`
/// (path in `WHISPER_SERVICES`), so that the test can stop and restart it without disturbing
/// others. Get one with `withPrivateService`, which deletes it afterwards.
public final class PrivateService: Sendable {
    public enum Kind: String, Sendable { case pg, redis }

    public let kind: Kind
    /// Data directory; kept across `stop()` and `start()`.
    public let directory: String
    public let port: Int
    /// `postgresql://whisper@127.0.0.1:PORT/whisper` or `redis://127.0.0.1:PORT/0`, as
    /// scripts/services printed it on the first start (a restart keeps port and database).
    public let url: String

    fileprivate init(kind: Kind, directory: String, port: Int, url: String) {
        self.kind = kind
        self.directory = directory
        self.port = port
        self.url = url
    }

    /// Starts the server again after `stop()`: same port, same data.
    public func start() async throws {
        try await Self.services([kind.rawValue, "start", directory, String(port)])
    }

    /// Stops the server (PostgreSQL: fast shutdown; Redis: SHUTDOWN); its data stays.
    public func stop() async throws {
        try await Self.services([kind.rawValue, "stop", directory])
    }

    /// Runs scripts/services; returns the last line it printed on stdout (a URL).
    @discardableResult
    fileprivate static func services(_ arguments: [String]) async throws -> String {
        let script = try TestEnvironment.servicesScript
        let output = try await Subprocess.run(script, arguments)
        return output.split(separator: "\n").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
    }
}

/// Starts a private `kind` server, runs `body` with it, then stops it and deletes its data,
/// whether `body` returned or threw.
public func withPrivateService<T>(_ kind: PrivateService.Kind,
                                  _ body: (PrivateService) async throws -> T) async throws -> T {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("whisper-\(kind.rawValue)-\(UUID().uuidString)").path
    // The postgres OS user (scripts/services runs PostgreSQL as it) must be able to enter.
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                            attributes: [.posixPermissions: 0o777])
    return try await withCleanup {
        let port = try TestSocket.freePort()
        let url = try await PrivateService.services([kind.rawValue, "start", directory, String(port)])
        guard url.hasPrefix(kind == .pg ? "postgresql://" : "redis://") else {
            throw Subprocess.Failure(description: "scripts/services \(kind.rawValue) start printed no URL: \(url)")
        }
        return try await body(PrivateService(kind: kind, directory: directory, port: port, url: url))
    } cleanup: {
        _ = try? await PrivateService.services([kind.rawValue, "stop", directory])
        try? FileManager.default.removeItem(atPath: directory)
    }
}
