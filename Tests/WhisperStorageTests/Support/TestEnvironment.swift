import Foundation
import Synchronization
import Testing
import WhisperStorage

/// The servers tests talk to. Shared instances come from the environment (scripts/test
/// exports them); a missing variable is a recorded failure, never a silent skip.
enum TestEnvironment {
    static func databaseURL() -> String? {
        variable("WHISPER_TEST_DATABASE_URL",
                 example: "postgresql://whisper@127.0.0.1:PORT/whisper")
    }

    static func redisURL() -> String? {
        variable("WHISPER_TEST_REDIS_URL", example: "redis://127.0.0.1:PORT/0")
    }

    /// scripts/services, used for private instances a test stops and restarts. Optional:
    /// without it the tests start PostgreSQL/Redis themselves.
    static var servicesCLI: String? {
        ProcessInfo.processInfo.environment["WHISPER_SERVICES"].flatMap { $0.isEmpty ? nil : $0 }
    }

    private static func variable(_ name: String, example: String) -> String? {
        guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else {
            Issue.record("""
                \(name) is not set. Run the tests through scripts/test, or start a server and \
                export \(name)=\(example).
                """)
            return nil
        }
        return value
    }

    /// Log sink for storage objects under test; prints when WHISPER_TEST_LOG=1.
    static let log: StorageLog = { level, message in
        if ProcessInfo.processInfo.environment["WHISPER_TEST_LOG"] == "1" {
            FileHandle.standardError.write(Data("[storage \(level.rawValue)] \(message)\n".utf8))
        }
    }

    static func uniqueName(_ prefix: String) -> String {
        prefix + "_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
    }
}

/// Polls `condition` until it holds or `seconds` pass.
func eventually(within seconds: Double, every interval: Double = 0.05,
                _ condition: () async -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if await condition() { return true }
        try? await Task.sleep(nanoseconds: UInt64(interval * 1_000_000_000))
    }
    return await condition()
}

/// Seconds elapsed while running `body`.
func measure<T>(_ body: () async throws -> T) async rethrows -> (T, Double) {
    let start = Date()
    let value = try await body()
    return (value, Date().timeIntervalSince(start))
}

struct TestSetupError: Error, CustomStringConvertible {
    let description: String
}

/// A PostgreSQL call's outcome as a Result, for asserting on typed failures. (Closures
/// do not infer typed throws yet, so the error is narrowed here.)
func pgResult<T>(_ body: () async throws -> T) async -> Result<T, PostgresError> {
    do {
        return .success(try await body())
    } catch let error as PostgresError {
        return .failure(error)
    } catch {
        Issue.record("unexpected error type: \(error)")
        return .failure(.queryFailed(sqlState: "XXXXX", message: "\(error)"))
    }
}

func migrationResult<T>(_ body: () async throws -> T) async -> Result<T, MigrationError> {
    do {
        return .success(try await body())
    } catch let error as MigrationError {
        return .failure(error)
    } catch {
        Issue.record("unexpected error type: \(error)")
        return .failure(.malformedName("\(error)"))
    }
}
