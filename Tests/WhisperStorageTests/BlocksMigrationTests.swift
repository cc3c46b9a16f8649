import Foundation
import Testing
import WhisperStorage

/// migrations/0006_blocks.sql against a real server: the table the block lists live in
/// (docs/protocol.md "Blocking") keeps only pairs of two different registered identities,
/// once each, and goes with either user.
@Suite("blocks table against a real server")
struct BlocksMigrationTests {
    @Test func blocks_holdsPairsOfRegisteredIdentities_onceEach_neverOneself() async throws {
        try await withTestSchema { schema in
            let pool = schema.pool()
            defer { pool.shutdown() }
            try await Migrator(pool: pool, directory: MigrationFixtures.repositoryDirectory).migrate()
            // Each identity its own signing key (unique since migrations/0005).
            for (index, id) in ["WSP-ABCD-EFGH-JK23", "WSP-ABCD-EFGH-JK24"].enumerated() {
                let key = [UInt8](repeating: UInt8(7 + index), count: 32)
                _ = try await pool.query("INSERT INTO users (whisper_id, enc_public_key, sign_public_key) VALUES ($1, $2, $3)",
                                         [.text(id), .bytea(key), .bytea(key)])
            }
            let insert = "INSERT INTO blocks (blocker_id, blocked_id) VALUES ($1, $2)"
            _ = try await pool.query(insert, [.text("WSP-ABCD-EFGH-JK23"), .text("WSP-ABCD-EFGH-JK24")])
            _ = try await pool.query(insert, [.text("WSP-ABCD-EFGH-JK24"), .text("WSP-ABCD-EFGH-JK23")])
            await #expect(throws: PostgresError.self) {  // the same pair twice
                _ = try await pool.query(insert, [.text("WSP-ABCD-EFGH-JK23"), .text("WSP-ABCD-EFGH-JK24")])
            }
            await #expect(throws: PostgresError.self) {  // oneself
                _ = try await pool.query(insert, [.text("WSP-ABCD-EFGH-JK23"), .text("WSP-ABCD-EFGH-JK23")])
            }
            await #expect(throws: PostgresError.self) {  // not a registered identity
                _ = try await pool.query(insert, [.text("WSP-ABCD-EFGH-JK23"), .text("WSP-ZZZZ-ZZZZ-ZZ22")])
            }
            _ = try await pool.query("DELETE FROM users WHERE whisper_id = $1", [.text("WSP-ABCD-EFGH-JK24")])
            let left = try await pool.query("SELECT count(*) AS n FROM blocks")
            #expect(left.first?.int64("n") == 0)
        }
    }
}
