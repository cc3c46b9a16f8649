import Foundation

/// The built `whisper-server serve` in a process of its own, on the test PostgreSQL and Redis,
/// for tests that must end it the way production ends servers — SIGTERM (a drain) or SIGKILL
/// (a crash: nothing flushed, nothing closed) — and start it again on the same ports. A
/// `TestServer` lives in the test process and cannot be killed.
///
/// Its log (JSON lines on stdout, then stderr) goes to `logPath`, appended to across restarts.
public final class ServerProcess: @unchecked Sendable {
    public let publicPort: Int
    public let adminPort: Int
    public let logPath: String
    private let environment: [String: String]
    private let lock = NSLock()
    private var pid: pid_t?

    /// `overrides` are added to (and win over) `TestServer`'s defaults, with fixed loopback
    /// ports (kept across restarts) and migrations on start.
    public init(_ overrides: [String: String] = [:]) throws {
        publicPort = try TestSocket.freePort()
        adminPort = try TestSocket.freePort()
        logPath = NSTemporaryDirectory() + "whisper-server-" + UUID().uuidString.lowercased() + ".log"
        var environment = try TestServer.environment(publicAddress: "127.0.0.1:\(publicPort)", adminAddress: "127.0.0.1:\(adminPort)")
        environment["WHISPER_MIGRATE_ON_START"] = "1"
        environment.merge(overrides) { $1 }
        self.environment = environment
    }

    /// Starts the process and waits (up to `timeoutSeconds`) until `GET /health` answers 200.
    public func start(timeoutSeconds: Double = 60) async throws {
        let binary = try BuiltProducts.whisperServer
        let log = logPath
        // Appended to, so a restart keeps what the killed process wrote.
        let started = try Subprocess.spawn(binary, ["serve"], environment: environment, stdin: "/dev/null",
                                           stdout: log, stderr: log, append: true)
        lock.withLock { pid = started }
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while (try? TestHTTP.get(port: publicPort, "/health"))?.status != 200 {
            var status: Int32 = 0
            if waitpid(started, &status, WNOHANG) == started {
                lock.withLock { pid = nil }
                throw Subprocess.Failure(description: "whisper-server exited during start-up: \(tail())")
            }
            guard Date() < deadline else {
                try await stop(signal: SIGKILL)
                throw Subprocess.Failure(description: "whisper-server did not answer /health in \(timeoutSeconds) s: \(tail())")
            }
            try await Task.sleep(nanoseconds: 50_000_000)
        }
    }

    /// Sends `signal` (SIGTERM: drain and exit; SIGKILL: die at once) and waits for the exit;
    /// returns the exit status, nil when the signal ended it.
    @discardableResult
    public func stop(signal: Int32 = SIGTERM) async throws -> Int32? {
        guard let running = lock.withLock({ pid }) else { return nil }
        Glibc.kill(running, signal)
        let status: Result<Int32, Subprocess.Failure> = await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: Result { () throws(Subprocess.Failure) in try Subprocess.wait(running, "whisper-server") }) }
                .start()
        }
        lock.withLock { pid = nil }
        return Subprocess.exitStatus(try status.get())
    }

    /// The end of the log, for failure messages.
    public func tail(_ characters: Int = 4_000) -> String {
        String(((try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "").suffix(characters))
    }

    deinit {
        if let pid { Glibc.kill(pid, SIGKILL) }
    }
}
