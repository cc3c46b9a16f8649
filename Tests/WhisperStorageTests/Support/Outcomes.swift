import Testing
import WhisperStorage

extension Result {
    var failureValue: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

/// `body`'s outcome as a Result with the error narrowed to `E`, for asserting on typed
/// failures (closures do not infer typed throws yet). An error of another type is recorded
/// as an issue and returned as `other(description)`.
func outcome<T, E: Error>(_ body: () async throws -> T, other: (String) -> E) async -> Result<T, E> {
    do {
        return .success(try await body())
    } catch let error as E {
        return .failure(error)
    } catch {
        Issue.record("unexpected error type: \(error)")
        return .failure(other("\(error)"))
    }
}

func pgResult<T>(_ body: () async throws -> T) async -> Result<T, PostgresError> {
    await outcome(body) { .queryFailed(sqlState: "XXXXX", message: $0) }
}

func migrationResult<T>(_ body: () async throws -> T) async -> Result<T, MigrationError> {
    await outcome(body) { .malformedName($0) }
}
