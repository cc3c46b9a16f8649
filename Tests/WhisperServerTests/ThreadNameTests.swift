import Foundation
import Synchronization
import Testing
import WhisperTesting
@testable import WhisperServer
@testable import WhisperStores

/// The process's own threads carry names the kernel sees (`top -H`, perf,
/// /proc/<pid>/task/*/comm), as the loops' do (Tests/WhisperRuntimeTests/NamedThreadTests.swift).
@Suite struct ThreadNameTests {
    static func comm() -> String {
        (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "?"
    }

    @Test func signalWatchThreads_areNamed() async throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        let seen = Mutex<[String]>([])
        SignalWatch.every("whisper-sighup", fd: fds[0]) { seen.withLock { $0.append(Self.comm()) } }
        var one: UInt64 = 1
        #expect(write(fds[1], &one, 8) == 8)
        #expect(await eventually { seen.withLock { $0 } == ["whisper-sighup\n"] }, "\(seen.withLock { $0 })")

        var once: [Int32] = [0, 0]
        #expect(pipe(&once) == 0)
        defer { close(once[0]); close(once[1]) }
        let readEnd = once[0]
        let waiter = Task { await SignalWatch.once("whisper-sigterm", fd: readEnd) }
        #expect(await eventually { Self.threadNames().contains("whisper-sigterm") })
        #expect(write(once[1], &one, 8) == 8)
        await waiter.value
    }

    @Test func blockingWorkerThreads_areNamed() async throws {
        let seen = Mutex<String?>(nil)
        BlockingWorker(name: "whisper-s3-del").submit { seen.withLock { $0 = Self.comm() } }
        #expect(await eventually { seen.withLock { $0 } != nil })
        #expect(seen.withLock { $0 } == "whisper-s3-del\n")
    }

    /// Names are cut to 15 bytes by the kernel: every thread a server starts keeps its whole name.
    @Test func aServersThreads_carryTheirWholeNames() async throws {
        let fake = try await FakeFCM()
        defer { fake.stop() }
        let server = try await TestServer(fake.serverEnvironment)
        defer { server.stop() }
        let names = Self.threadNames()
        for name in ["whisper-loop-0", "whisper-loop-1", "whisper-pg-0", "whisper-fcm"] {
            #expect(names.contains(name), "no thread \(name) in \(Set(names).sorted())")
        }
    }

    /// The names of this process's threads now.
    static func threadNames() -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.compactMap { try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8) }
            .map { $0.trimmingCharacters(in: .newlines) }
    }
}
