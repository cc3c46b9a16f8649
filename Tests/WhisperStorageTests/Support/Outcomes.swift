import Testing
import WhisperStorage

extension Result {
    var failureValue: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
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
