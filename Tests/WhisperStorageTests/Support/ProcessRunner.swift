import Foundation
import WhisperTesting

/// Runs helper commands (pg_ctl, redis-server, scripts/services) for test fixtures, through
/// `Subprocess` (see there for why not Foundation's `Process`).
enum ProcessRunner {
    /// Runs the command on its own thread, so the blocking wait stays off the cooperative pool.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) async throws -> String {
        let result: Result<String, TestSetupError> = await withCheckedContinuation { continuation in
            let thread = Thread {
                continuation.resume(returning: Result { () throws(TestSetupError) -> String in
                    try runBlocking(executable, arguments)
                })
            }
            thread.start()
        }
        return try result.get()
    }

    /// Runs a command as the `postgres` user: initdb and postgres refuse to run as root.
    @discardableResult
    static func runAsPostgres(_ executable: String, _ arguments: [String]) async throws -> String {
        if getuid() == 0 {
            return try await run("/usr/sbin/runuser", ["-u", "postgres", "--", executable] + arguments)
        }
        return try await run(executable, arguments)
    }

    static func runBlocking(_ executable: String, _ arguments: [String]) throws(TestSetupError) -> String {
        do {
            return try Subprocess.run(executable, arguments)
        } catch {
            throw TestSetupError(description: error.description)
        }
    }

    /// A TCP port nobody listens on right now.
    static func freePort() async throws -> Int {
        if let cli = TestEnvironment.servicesCLI {
            let text = try await run(cli, ["free-port"]).trimmingCharacters(in: .whitespacesAndNewlines)
            if let port = Int(text.split(separator: "\n").last ?? "") { return port }
        }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestSetupError(description: "socket failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa -> Int32 in
                guard bind(fd, sa, length) == 0 else { return -1 }
                return getsockname(fd, sa, &length)
            }
        }
        guard bound == 0 else { throw TestSetupError(description: "bind/getsockname failed") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
