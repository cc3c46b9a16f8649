import Foundation

/// Runs a helper command (scripts/services, openssl) to completion: the one way tests run
/// other programs.
///
/// posix_spawn + waitpid rather than Foundation's `Process`: `waitUntilExit` spins a run loop
/// that relies on a monitor thread, and two of them blocking the two cooperative threads of a
/// 2-core machine hung whole test runs. The wait runs on a thread of its own for the same
/// reason: starting PostgreSQL takes seconds, and the cooperative pool must not sit in
/// `waitpid` meanwhile. Output goes to temporary files, not pipes: a daemon the command starts
/// inherits the descriptors, and a pipe would then never reach EOF.
public enum Subprocess {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// How a command ended: its exit status (nil when a signal killed it) and what it printed.
    public struct Outcome: Sendable {
        public let exitStatus: Int32?
        public let stdout: String
        public let stderr: String
    }

    /// Returns what the command printed on stdout; throws unless it exits 0 (the failure
    /// carries stdout and stderr).
    @discardableResult
    public static func run(_ executable: String, _ arguments: [String]) async throws(Failure) -> String {
        let outcome = try await capture(executable, arguments)
        guard outcome.exitStatus == 0 else {
            throw Failure(description: "\(executable) \(arguments.joined(separator: " ")) failed (exit \(outcome.exitStatus.map(String.init) ?? "by signal")): \(outcome.stdout)\(outcome.stderr)")
        }
        return outcome.stdout
    }

    /// Runs the command with this process's environment plus `environment`, and answers how
    /// it ended whatever the status; throws only when it cannot be started. `stdin` is what the
    /// command reads on its standard input, then end of file (a file, not a pipe, for the reason
    /// above); without it, /dev/null.
    public static func capture(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                               stdin: String? = nil) async throws(Failure) -> Outcome {
        let result: Result<Outcome, Failure> = await withCheckedContinuation { continuation in
            Thread {
                continuation.resume(returning: Result { () throws(Failure) -> Outcome in
                    try runBlocking(executable, arguments, environment: environment, stdin: stdin)
                })
            }.start()
        }
        return try result.get()
    }

    private static func runBlocking(_ executable: String, _ arguments: [String],
                                    environment: [String: String], stdin: String?) throws(Failure) -> Outcome {
        let base = NSTemporaryDirectory() + "whisper-subprocess-" + UUID().uuidString
        let stdinPath = base + ".in", stdoutPath = base + ".out", stderrPath = base + ".err"
        defer {
            unlink(stdinPath)
            unlink(stdoutPath)
            unlink(stderrPath)
        }
        if let stdin {
            guard FileManager.default.createFile(atPath: stdinPath, contents: Data(stdin.utf8)) else {
                throw Failure(description: "cannot write the standard input of \(executable) to \(stdinPath)")
            }
        }
        let pid = try spawn(executable, arguments, environment: environment, stdin: stdin == nil ? "/dev/null" : stdinPath,
                            stdout: stdoutPath, stderr: stderrPath)
        let status = try wait(pid, executable)
        let output = (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? ""
        let errors = (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
        return Outcome(exitStatus: exitStatus(status), stdout: output, stderr: errors)
    }

    /// Starts `executable` with this process's environment plus `environment`, its standard
    /// streams opened on the three paths (output files created, and truncated unless `append`);
    /// returns its pid.
    static func spawn(_ executable: String, _ arguments: [String], environment: [String: String],
                      stdin: String, stdout: String, stderr: String, append: Bool = false) throws(Failure) -> pid_t {
        let output = O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, stdin, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout, output, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderr, output, 0o644)
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let merged = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let envp: [UnsafeMutablePointer<CChar>?] = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = argv.withUnsafeBufferPointer { pointer -> Int32 in
            envp.withUnsafeBufferPointer { environmentPointer -> Int32 in
                guard let base = pointer.baseAddress, let environmentBase = environmentPointer.baseAddress else { return EINVAL }
                return posix_spawn(&pid, executable, &actions, nil, base, environmentBase)
            }
        }
        guard spawned == 0 else { throw Failure(description: "cannot run \(executable): errno \(spawned)") }
        return pid
    }

    /// Blocks until `pid` ends; its raw wait status.
    static func wait(_ pid: pid_t, _ executable: String) throws(Failure) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw Failure(description: "waitpid failed for \(executable)") }
        }
        return status
    }

    /// WIFEXITED / WEXITSTATUS, spelled out (the macros do not import): nil when a signal ended it.
    static func exitStatus(_ status: Int32) -> Int32? {
        status & 0x7f == 0 ? (status >> 8) & 0xff : nil
    }
}
