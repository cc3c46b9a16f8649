import WhisperRuntime

/// Applies `migrations/NNNN_name.sql` in order, each in its own transaction together with
/// its `schema_migrations` row, all under a session advisory lock so that two nodes
/// starting together never migrate at once: the second waits for the lock, then finds
/// nothing left to do.
public struct Migrator: Sendable {
    /// `pg_advisory_lock` key: ASCII "whisperm". Fixed, so every node agrees on it.
    public static let advisoryLockKey: Int64 = 0x7768_6973_7065_726d

    public let migrations: [Migration]
    private let pool: PostgresPool
    private let log: StorageLog

    /// Loads the files now, so a bad directory fails start-up rather than the first /ready.
    public init(pool: PostgresPool, directory: String, log: @escaping StorageLog = { _, _ in }) throws(MigrationError) {
        self.init(pool: pool, migrations: try Migration.load(directory: directory), log: log)
    }

    public init(pool: PostgresPool, migrations: [Migration], log: @escaping StorageLog = { _, _ in }) {
        self.pool = pool
        self.migrations = migrations.sorted { $0.version < $1.version }
        self.log = log
    }

    /// Applies every missing migration; returns the ones this call applied (empty when
    /// the schema was already current, including when another node just migrated it).
    @discardableResult
    public func migrate() async throws(MigrationError) -> [Migration] {
        let migrations = self.migrations
        let log = self.log
        let outcome: Result<[Migration], MigrationError>
        do {
            outcome = try await pool.withConnection { connection throws(PostgresError) in
                Self.migrateLocked(connection, migrations, log)
            }
        } catch {
            throw .database(error)
        }
        return try outcome.get()
    }

    /// Migrations not yet recorded in `schema_migrations`.
    public func pendingCount() async throws(MigrationError) -> Int {
        let migrations = self.migrations
        do {
            return try await pool.withConnection { connection throws(PostgresError) in
                try Self.pending(connection, migrations).count
            }
        } catch {
            throw .database(error)
        }
    }

    /// True when nothing is pending; false also when the database cannot be asked.
    public func isCurrent() async -> Bool {
        (try? await pendingCount()) == 0
    }

    /// Loop flavour of `pendingCount` for /ready: `completion` runs on `loop`.
    public func pendingCount(on loop: EventLoop, _ completion: @escaping (Result<Int, PostgresError>) -> Void) {
        let migrations = self.migrations
        pool.withConnection(on: loop, { connection throws(PostgresError) in
            try Self.pending(connection, migrations).count
        }, completion)
    }

    // MARK: On the worker

    private static func migrateLocked(_ connection: PostgresConnection, _ migrations: [Migration],
                                      _ log: StorageLog) -> Result<[Migration], MigrationError> {
        // Waiting for another node's migration can exceed the session statement_timeout:
        // lift it for this session and put the old value back afterwards.
        let savedTimeout: String
        do {
            savedTimeout = try connection.query("SHOW statement_timeout").first?.string(0) ?? "0"
            _ = try connection.query("SELECT set_config('statement_timeout', '0', false)")
            _ = try connection.query("SELECT pg_advisory_lock($1)", [.int64(advisoryLockKey)])
        } catch {
            return .failure(.database(error))
        }
        defer {
            _ = try? connection.query("SELECT pg_advisory_unlock($1)", [.int64(advisoryLockKey)])
            _ = try? connection.query("SELECT set_config('statement_timeout', $1, false)", [.text(savedTimeout)])
        }
        let missing: [Migration]
        do {
            _ = try connection.query("""
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    version integer PRIMARY KEY,
                    name text NOT NULL,
                    applied_at timestamptz NOT NULL DEFAULT now()
                )
                """)
            missing = try pending(connection, migrations)
        } catch {
            return .failure(.database(error))
        }
        var applied: [Migration] = []
        for migration in missing {
            do {
                try PostgresPool.inTransaction(connection) { connection throws(PostgresError) in
                    try connection.executeScript(migration.sql)
                    _ = try connection.query(
                        "INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, now())",
                        [.int64(Int64(migration.version)), .text(migration.name)])
                }
            } catch {
                log(.error, "migration \(migration.version)_\(migration.name) failed: \(error)")
                return .failure(.failed(version: migration.version, error))
            }
            log(.info, "applied migration \(migration.version)_\(migration.name)")
            applied.append(migration)
        }
        return .success(applied)
    }

    private static func pending(_ connection: PostgresConnection,
                                _ migrations: [Migration]) throws(PostgresError) -> [Migration] {
        // to_regclass is NULL before the first migrate: everything is pending then.
        let exists = try connection.query("SELECT to_regclass('schema_migrations') IS NOT NULL AS present")
        guard exists.first?.bool("present") == true else { return migrations }
        let rows = try connection.query("SELECT version FROM schema_migrations")
        let applied = Set(rows.compactMap { $0.int64(0) })
        return migrations.filter { !applied.contains(Int64($0.version)) }
    }
}
