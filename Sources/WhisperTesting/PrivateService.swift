import Foundation

/// A PostgreSQL or Redis of a test's own, started through `scripts/services` (path in
/// `WHISPER_SERVICES`), so that the test can stop and restart it without disturbing others.
public final class PrivateService: @unchecked Sendable {
    public enum Kind: String { case pg, redis }

    public let kind: Kind
    public let directory: String
    public let port: Int
    public private(set) var url = ""

    public init(_ kind: Kind) throws {
        self.kind = kind
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("whisper-\(kind.rawValue)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o777])
        let portText = try PrivateService.run(["free-port"])
        guard let port = Int(portText) else { throw TestSocket.Failure.io("free-port said \(portText)") }
        self.port = port
        try start()
    }

    deinit {
        _ = try? PrivateService.run([kind.rawValue, "stop", directory])
        try? FileManager.default.removeItem(atPath: directory)
    }

    public func start() throws {
        url = try PrivateService.run([kind.rawValue, "start", directory, String(port)])
    }

    public func stop() throws {
        _ = try PrivateService.run([kind.rawValue, "stop", directory])
    }

    @discardableResult
    static func run(_ arguments: [String]) throws -> String {
        let script = try TestEnvironment.require("WHISPER_SERVICES")
        do {
            // The script logs on stderr and prints its result (a URL or a port) last on stdout.
            let output = try Subprocess.run(script, arguments)
            return output.split(separator: "\n").last.map { String($0).trimmingCharacters(in: .whitespaces) } ?? ""
        } catch {
            throw TestSocket.Failure.io(error.description)
        }
    }
}
