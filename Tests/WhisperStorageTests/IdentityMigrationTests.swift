import Foundation
import Testing
import WhisperStorage

/// Migration 0005 (one seed-recoverable identity per signing key) on a database that earlier
/// servers filled with duplicates: they minted a new id each time the same keys registered
/// without `whisperId`.
@Suite("Migration 0005 against a real server")
struct IdentityMigrationTests {
    static let version = 5

    static func user(_ pool: PostgresPool, _ id: String, key: UInt8, createdDaysAgo: Int, activeHoursAgo: Int?) async throws {
        _ = try await pool.query("""
            INSERT INTO users (whisper_id, enc_public_key, sign_public_key, created_at)
            VALUES ($1, $2, $3, now() - $4::int * interval '1 day')
            """, [.text(id), .bytea([UInt8](repeating: 1, count: 32)), .bytea([UInt8](repeating: key, count: 32)),
                  .text(String(createdDaysAgo))])
        guard let activeHoursAgo else { return }
        _ = try await pool.query("""
            INSERT INTO devices (whisper_id, device_id, platform, last_active_at)
            VALUES ($1, $2::uuid, 'ios', now() - $3::int * interval '1 hour')
            """, [.text(id), .text(UUID().uuidString), .text(String(activeHoursAgo))])
    }

    @Test func duplicates_keepTheLastUsedOneRecoverable_andTheIndexRefusesNewDuplicates() async throws {
        try await withTestSchema { schema in
            let pool = schema.pool()
            defer { pool.shutdown() }
            let all = try Migration.load(directory: MigrationFixtures.repositoryDirectory)
            try await Migrator(pool: pool, migrations: all.filter { $0.version < Self.version }).migrate()
            // Three ids for one key: the oldest was used last (a recovery login with its id).
            try await Self.user(pool, "WSP-AAAA-AAAA-AAAA", key: 7, createdDaysAgo: 30, activeHoursAgo: 1)
            try await Self.user(pool, "WSP-BAAA-AAAA-AAVU", key: 7, createdDaysAgo: 2, activeHoursAgo: 40)
            try await Self.user(pool, "WSP-AAAA-AAAA-ABTS", key: 7, createdDaysAgo: 5, activeHoursAgo: nil)
            try await Self.user(pool, "WSP-ABCD-EFGH-IJ54", key: 8, createdDaysAgo: 3, activeHoursAgo: nil)

            #expect(try await Migrator(pool: pool, migrations: all).migrate().map(\.version).contains(Self.version))
            let rows = try await pool.query("SELECT whisper_id, seed_recoverable FROM users ORDER BY whisper_id")
            let recoverable = Dictionary(uniqueKeysWithValues: rows.compactMap { row in
                row.string("whisper_id").map { ($0, row.bool("seed_recoverable")) }
            })
            #expect(recoverable == ["WSP-AAAA-AAAA-AAAA": true, "WSP-BAAA-AAAA-AAVU": false,
                                    "WSP-AAAA-AAAA-ABTS": false, "WSP-ABCD-EFGH-IJ54": true])

            let insert = "INSERT INTO users (whisper_id, enc_public_key, sign_public_key, seed_recoverable) VALUES ($1, $2, $3, $4)"
            let key7 = PostgresValue.bytea([UInt8](repeating: 7, count: 32)), enc = PostgresValue.bytea([UInt8](repeating: 1, count: 32))
            await #expect(throws: PostgresError.self) {
                _ = try await pool.query(insert, [.text("WSP-HESP-ERAL-IT3A"), enc, key7, .bool(true)])
            }
            _ = try await pool.query(insert, [.text("WSP-HESP-ERAL-IT3A"), enc, key7, .bool(false)])
            // The retired-id table exists and keeps ids in canonical form.
            await #expect(throws: PostgresError.self) {
                _ = try await pool.query("INSERT INTO deleted_identities (whisper_id) VALUES ('wsp-aaaa-aaaa-aaaa')")
            }
        }
    }
}
