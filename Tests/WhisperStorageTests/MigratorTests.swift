import Foundation
import Testing
import WhisperStorage

@Suite("Migrator against a real server")
struct MigratorTests {
    static let contractTables = ["users", "devices", "groups", "group_members", "bans", "reports",
                                 "audit_events", "attachments", "attachment_recipients", "contact_backups"]

    @Test func repositoryMigrations_applyOnEmptyDatabase_areRecorded_andIdempotent() async throws {
        try await withTestSchema { schema in
            let pool = schema.pool()
            defer { pool.shutdown() }
            let migrator = try Migrator(pool: pool, directory: MigrationFixtures.repositoryDirectory)
            #expect(try await migrator.pendingCount() == migrator.migrations.count)
            #expect(await migrator.isCurrent() == false)

            let applied = try await migrator.migrate()
            #expect(applied.map(\.version) == migrator.migrations.map(\.version))
            for table in Self.contractTables {
                let rows = try await pool.query("SELECT to_regclass($1) IS NOT NULL AS present", [.text("\(schema.name).\(table)")])
                #expect(rows.first?.bool("present") == true, "table \(table) missing")
            }
            let recorded = try await pool.query("SELECT version, name FROM schema_migrations ORDER BY version")
            #expect(recorded.compactMap { $0.int64("version") } == migrator.migrations.map { Int64($0.version) })
            #expect(recorded.first?.string("name") == "init")

            #expect(try await migrator.migrate().isEmpty)
            #expect(try await migrator.pendingCount() == 0)
            #expect(await migrator.isCurrent())
        }
    }

    @Test func initSchema_enforcesItsConstraints() async throws {
        try await withTestSchema { schema in
            let pool = schema.pool()
            defer { pool.shutdown() }
            try await Migrator(pool: pool, directory: MigrationFixtures.repositoryDirectory).migrate()
            let key = [UInt8](repeating: 7, count: 32)
            _ = try await pool.query("INSERT INTO users (whisper_id, enc_public_key, sign_public_key) VALUES ($1, $2, $3)",
                                     [.text("WSP-ABCD-EFGH-JK23"), .bytea(key), .bytea(key)])
            await #expect(throws: PostgresError.self) {  // 31-byte key
                _ = try await pool.query("INSERT INTO users (whisper_id, enc_public_key, sign_public_key) VALUES ($1, $2, $3)",
                                         [.text("WSP-ABCD-EFGH-JK24"), .bytea(Array(key.dropLast())), .bytea(key)])
            }
            await #expect(throws: PostgresError.self) {  // platform outside ios|android
                _ = try await pool.query("INSERT INTO devices (whisper_id, device_id, platform) VALUES ($1, $2, $3)",
                                         [.text("WSP-ABCD-EFGH-JK23"), .text(UUID().uuidString), .text("web")])
            }
            _ = try await pool.query("INSERT INTO devices (whisper_id, device_id, platform) VALUES ($1, $2, $3)",
                                     [.text("WSP-ABCD-EFGH-JK23"), .text(UUID().uuidString), .text("ios")])
            let report = try await pool.query(
                "INSERT INTO reports (reporter_id, whisper_id, reason) VALUES ($1, $2, $3) RETURNING id, status",
                [.text("WSP-ABCD-EFGH-JK23"), .text("WSP-ZZZZ-ZZZZ-ZZ22"), .text("spam")])
            #expect(report.first?.string("status") == "open")
            #expect(report.first?.int64("id") != nil)
        }
    }

    @Test func migrations_applyInVersionOrder_eachInItsOwnTransaction() async throws {
        let directory = try MigrationFixtures.directory([
            "0002_fill.sql": "INSERT INTO steps VALUES (2, clock_timestamp());",
            "0001_create.sql": "CREATE TABLE steps (n int PRIMARY KEY, at timestamptz);\nINSERT INTO steps VALUES (1, clock_timestamp());",
            "0003_more.sql": "INSERT INTO steps VALUES (3, clock_timestamp());",
        ])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await withTestSchema { schema in
            let pool = schema.pool()
            defer { pool.shutdown() }
            let applied = try await Migrator(pool: pool, directory: directory).migrate()
            #expect(applied.map(\.version) == [1, 2, 3])
            let order = try await pool.query("SELECT n FROM steps ORDER BY at")
            #expect(order.compactMap { $0.int64(0) } == [1, 2, 3])
        }
    }

    @Test func pendingCount_countsOnlyUnappliedMigrations() async throws {
        try await withTestSchema { schema in
            let pool = schema.pool()
            defer { pool.shutdown() }
            let all = [
                Migration(version: 1, name: "a", sql: "CREATE TABLE a (x int);"),
                Migration(version: 2, name: "b", sql: "CREATE TABLE b (x int);"),
                Migration(version: 3, name: "c", sql: "CREATE TABLE c (x int);"),
            ]
            try await Migrator(pool: pool, migrations: Array(all.prefix(2))).migrate()
            let full = Migrator(pool: pool, migrations: all)
            #expect(try await full.pendingCount() == 1)
            #expect(await full.isCurrent() == false)
            #expect(try await full.migrate().map(\.version) == [3])
            #expect(await full.isCurrent())
        }
    }

    /// Why migrations/README.md forbids filling the 0003 gap: on a database that already has
    /// 0004, a new 0003 is pending (the migrator compares sets of versions, not a high-water
    /// mark) and runs after 0004 there, while a fresh database runs it before 0004.
    @Test func aMigrationNumberedBelowOneApplied_runsAfterIt_onAnExistingDatabase() async throws {
        try await withTestSchema { schema in
            let pool = schema.pool()
            defer { pool.shutdown() }
            let first = Migration(version: 1, name: "create", sql: "CREATE TABLE steps (n int PRIMARY KEY, at timestamptz);")
            let later = Migration(version: 4, name: "later", sql: "INSERT INTO steps VALUES (4, clock_timestamp());")
            let gap = Migration(version: 3, name: "gap", sql: "INSERT INTO steps VALUES (3, clock_timestamp());")
            try await Migrator(pool: pool, migrations: [first, later]).migrate()
            #expect(try await Migrator(pool: pool, migrations: [first, gap, later]).migrate().map(\.version) == [3])
            let order = try await pool.query("SELECT n FROM steps ORDER BY at")
            #expect(order.compactMap { $0.int64(0) } == [4, 3])
        }
    }

    @Test func failingMigration_rollsBack_andStopsThere() async throws {
        try await withTestSchema { schema in
            let pool = schema.pool()
            defer { pool.shutdown() }
            let migrator = Migrator(pool: pool, migrations: [
                Migration(version: 1, name: "good", sql: "CREATE TABLE good (x int);"),
                Migration(version: 2, name: "bad", sql: "CREATE TABLE half (x int);\nSELECT no_such_column FROM good;"),
                Migration(version: 3, name: "never", sql: "CREATE TABLE never (x int);"),
            ])
            let result = await migrationResult { try await migrator.migrate() }
            guard case .failure(.failed(let version, _)) = result else {
                Issue.record("expected .failed, got \(result)")
                return
            }
            #expect(version == 2)
            let half = try await pool.query("SELECT to_regclass($1) IS NULL AS absent", [.text("\(schema.name).half")])
            #expect(half.first?.bool("absent") == true)
            #expect(try await migrator.pendingCount() == 2)
            // The advisory lock was released: a new run gets as far as the same failure.
            await #expect(throws: MigrationError.self) { try await migrator.migrate() }
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func concurrentMigrate_fromTwoNodes_appliesEachMigrationOnce() async throws {
        try await withTestSchema { schema in
            // Two pools stand for two nodes. The first migration sleeps so the second node
            // arrives while the first holds the lock; CREATE TABLE (no IF NOT EXISTS) would
            // fail if both applied it.
            let migrations = [
                Migration(version: 1, name: "slow", sql: "SELECT pg_sleep(0.5); CREATE TABLE once (x int);"),
                Migration(version: 2, name: "next", sql: "CREATE TABLE twice_would_fail (x int);"),
            ]
            let nodeA = schema.pool()
            let nodeB = schema.pool()
            defer {
                nodeA.shutdown()
                nodeB.shutdown()
            }
            async let first = Migrator(pool: nodeA, migrations: migrations).migrate()
            async let second = Migrator(pool: nodeB, migrations: migrations).migrate()
            let results = try await [first.count, second.count].sorted()
            #expect(results == [0, 2])
            let recorded = try await nodeA.query("SELECT count(*) FROM schema_migrations")
            #expect(recorded.first?.int64(0) == 2)
        }
    }
}
