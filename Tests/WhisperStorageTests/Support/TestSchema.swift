import Foundation
import WhisperStorage
import WhisperTesting

/// A fresh, empty schema in the shared test database, first on `search_path`, so each
/// test (migrations included) starts from nothing and tests can run in parallel.
struct TestSchema {
    let name: String
    /// The database URL with `options=-c search_path=<name>`.
    let url: String
    private let baseURL: String

    /// Throws when WHISPER_TEST_DATABASE_URL is not set or the schema cannot be created.
    static func create() async throws -> TestSchema {
        let baseURL = try TestEnvironment.databaseURL
        let name = TestEnvironment.uniqueName("t")
        let admin = PostgresPool(url: baseURL, size: 1, log: TestEnvironment.log)
        defer { admin.shutdown() }
        // An identifier cannot be a parameter; `name` is generated here, [a-z0-9_] only.
        _ = try await admin.query("CREATE SCHEMA \(name)")
        let separator = baseURL.contains("?") ? "&" : "?"
        return TestSchema(name: name, url: baseURL + separator + "options=-c%20search_path%3D\(name)", baseURL: baseURL)
    }

    func drop() async {
        let admin = PostgresPool(url: baseURL, size: 1, log: TestEnvironment.log)
        defer { admin.shutdown() }
        _ = try? await admin.query("DROP SCHEMA \(name) CASCADE")
    }

    /// A pool on this schema.
    func pool(size: Int = 2, configure: (inout PostgresConfiguration) -> Void = { _ in }) -> PostgresPool {
        var configuration = PostgresConfiguration(url: url, poolSize: size)
        configure(&configuration)
        return PostgresPool(configuration: configuration, log: TestEnvironment.log)
    }
}

/// Runs `body` with a fresh schema and drops it afterwards, whether `body` returned or threw.
func withTestSchema(_ body: (TestSchema) async throws -> Void) async throws {
    let schema = try await TestSchema.create()
    try await withCleanup { try await body(schema) } cleanup: { await schema.drop() }
}
