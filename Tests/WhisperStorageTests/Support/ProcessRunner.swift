import Foundation

/// Runs helper commands (pg_ctl, redis-server, scripts/services) for test fixtures.
///
/// posix_spawn + waitpid rather than Foundation's `Process`: `waitUntilExit` spins a run
/// loop that relies on a monitor thread, and two of them blocking the two cooperative
/// threads of this machine hung the whole test run. Output goes to a temporary file, not
/// a pipe: daemons these commands start may inherit the descriptors, and a pipe would
/// then never reach EOF.
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
        let outputPath = NSTemporaryDirectory() + "whisper-storage-test-" + UUID().uuidString + ".out"
        defer { unlink(outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = argv.withUnsafeBufferPointer { pointer -> Int32 in
            guard let base = pointer.baseAddress else { return EINVAL }
            return posix_spawn(&pid, executable, &actions, nil, base, environ)
        }
        guard spawned == 0 else {
            throw TestSetupError(description: "cannot run \(executable): errno \(spawned)")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw TestSetupError(description: "waitpid failed for \(executable)") }
        }
        let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        // WIFEXITED && WEXITSTATUS == 0, spelled out: the macros do not import.
        guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else {
            throw TestSetupError(description: """
                \(executable) \(arguments.joined(separator: " ")) failed (wait status \(status)):
                \(output)
                """)
        }
        return output
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
