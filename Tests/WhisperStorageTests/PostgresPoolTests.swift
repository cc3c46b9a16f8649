import Foundation
import Testing
import WhisperRuntime
@testable import WhisperStorage
import WhisperTesting

@Suite("PostgresPool against a real server")
struct PostgresPoolTests {
    @Test func roundTrip_eachValueType_includingNullAndBytea() async throws {
        try await withTestSchema { schema in
            let pool = schema.pool()
            defer { pool.shutdown() }
            let text = "héllo 'quoted' \\ \"double\" ✓"
            let bytes: [UInt8] = [0, 1, 2, 0x5c, 0x78, 0x7f, 0x80, 0xff, 0]
            let rows = try await pool.query(
                "SELECT $1::text AS t, $2::bigint AS i, $3::boolean AS b, $4::bytea AS y, $5::text AS n, "
                    + "$6::bytea AS empty, $7::bigint AS maxi, $8::boolean AS f",
                [.text(text), .int64(Int64.min), .bool(true), .bytea(bytes), nil, .bytea([]), .int64(Int64.max), .bool(false)])
            let row = try #require(rows.first)
            #expect(rows.columns == ["t", "i", "b", "y", "n", "empty", "maxi", "f"])
            #expect(row.string("t") == text)
            #expect(row.int64("i") == Int64.min)
            #expect(row.bool("b") == true)
            #expect(row.bytes("y") == bytes)
            #expect(row.string("n") == nil)
            #expect(row.isNull("n"))
            #expect(row.bytes("empty") == [])
            #expect(row.int64("maxi") == Int64.max)
            #expect(row.bool("f") == false)
        }
    }

    @Test func parameterTypes_areInferredWithoutCasts() async throws {
        try await withTestSchema { schema in
            let pool = schema.pool()
            defer { pool.shutdown() }
            _ = try await pool.query("CREATE TABLE things (id uuid PRIMARY KEY, n bigint, seen timestamptz, data jsonb)")
            let id = UUID().uuidString
            let inserted = try await pool.query(
                "INSERT INTO things (id, n, seen, data) VALUES ($1, $2, to_timestamp($3::bigint / 1000.0), $4)",
                [.text(id), .int64(7), .int64(1_730_000_000_123), .text("{\"k\": [1, 2]}")])
            #expect(inserted.affectedRows == 1)
            let rows = try await pool.query(
                "SELECT n, (extract(epoch FROM seen) * 1000)::bigint AS ms, data->'k'->>1 AS second FROM things WHERE id = $1",
                [.text(id.lowercased())])
            #expect(rows.first?.int64("n") == 7)
            #expect(rows.first?.int64("ms") == 1_730_000_000_123)
            #expect(rows.first?.string("second") == "2")
        }
    }

    @Test func uniqueViolation_isRecognised() async throws {
        try await withTestSchema { schema in
            let pool = schema.pool()
            defer { pool.shutdown() }
            _ = try await pool.query("CREATE TABLE names (name text PRIMARY KEY)")
            _ = try await pool.query("INSERT INTO names VALUES ($1)", [.text("alice")])
            let result = await pgResult { try await pool.query("INSERT INTO names VALUES ($1)", [.text("alice")]) }
            guard case .failure(.uniqueViolation(let constraint, _)) = result else {
                Issue.record("expected uniqueViolation, got \(result)")
                return
            }
            #expect(constraint == "names_pkey")
        }
    }

    @Test func serverError_carriesSQLState() async throws {
        try await withTestSchema { schema in
            let pool = schema.pool()
            defer { pool.shutdown() }
            let result = await pgResult { try await pool.query("SELECT * FROM no_such_table") }
            guard case .failure(.queryFailed(let sqlState, _)) = result else {
                Issue.record("expected queryFailed, got \(result)")
                return
            }
            #expect(sqlState == "42P01")
            // The worker's connection is still fine afterwards.
            let after = try await pool.query("SELECT 2")
            #expect(after.first?.int64(0) == 2)
        }
    }

    @Test func textWithNUL_isRejectedBeforeSending() async throws {
        try await withTestSchema { schema in
            let pool = schema.pool()
            defer { pool.shutdown() }
            await #expect(throws: PostgresError.queryFailed(sqlState: "22021", message: "parameter contains a NUL character")) {
                _ = try await pool.query("SELECT $1::text", [.text("a\u{0}b")])
            }
        }
    }

    @Test func statementTimeout_failsWithTimeout() async throws {
        try await withTestSchema { schema in
            let pool = schema.pool(size: 1) { $0.statementTimeoutMillis = 200 }
            defer { pool.shutdown() }
            // A statement that would run 30 s: failing within 15 s (the connect included, which a
            // loaded machine slows) can only be the 200 ms statement timeout.
            let (result, seconds) = await measure { await pgResult { try await pool.query("SELECT pg_sleep(30)") } }
            #expect(result.failureValue == .timeout)
            #expect(seconds < 15)
        }
    }

    @Test func transaction_commitsOnSuccess_andRollsBackWhenBodyThrows() async throws {
        try await withTestSchema { schema in
            let pool = schema.pool(size: 1)
            defer { pool.shutdown() }
            _ = try await pool.query("CREATE TABLE ledger (n int PRIMARY KEY)")
            let committed = try await pool.transaction { connection throws(PostgresError) in
                _ = try connection.query("INSERT INTO ledger VALUES (1)")
                _ = try connection.query("INSERT INTO ledger VALUES (2)")
                return 2
            }
            #expect(committed == 2)
            let failed = await pgResult {
                try await pool.transaction { connection throws(PostgresError) in
                    _ = try connection.query("INSERT INTO ledger VALUES (3)")
                    _ = try connection.query("INSERT INTO ledger VALUES (1)")  // duplicate: throws
                }
            }
            guard case .failure(.uniqueViolation) = failed else {
                Issue.record("expected the duplicate to fail the transaction, got \(failed)")
                return
            }
            let count = try await pool.query("SELECT count(*) FROM ledger").first?.int64(0)
            #expect(count == 2)
        }
    }

    @Test func leftOpenTransaction_isRolledBackBeforeTheNextJob() async throws {
        try await withTestSchema { schema in
            let pool = schema.pool(size: 1)
            defer { pool.shutdown() }
            _ = try await pool.query("CREATE TABLE scratch (n int)")
            _ = try await pool.withConnection { connection throws(PostgresError) in
                _ = try connection.query("BEGIN")
                _ = try connection.query("INSERT INTO scratch VALUES (1)")
            }
            let rows = try await pool.query("SELECT count(*) AS n FROM scratch")
            #expect(rows.first?.int64("n") == 0)
        }
    }

    @Test func loopAPI_deliversCompletionOnTheLoop() async throws {
        try await withTestSchema { schema in
            let pool = schema.pool()
            let harness = try TestLoop()
            defer { close(pool, harness) }
            let loop = harness.loop
            let outcome: (Bool, Int64?, Bool) = await harness.run { done in
                pool.query("SELECT $1::bigint + 1 AS n", [.int64(41)], on: loop) { result in
                    let value = try? result.get().first?.int64("n")
                    pool.ping(on: loop) { alive in
                        done((loop.inEventLoop, value, alive))
                    }
                }
            }
            #expect(outcome.0)
            #expect(outcome.1 == 42)
            #expect(outcome.2)
        }
    }

    @Test func unreachableServer_failsFastWithConnectionError() async throws {
        let refusing = try TestSocket.RefusingPort()
        let port = refusing.port
        // A long connect_timeout, so that failing fast (a refused connect) cannot be confused
        // with waiting the timeout out, however loaded the machine.
        let pool = PostgresPool(configuration: PostgresConfiguration(url: "postgresql://nobody@127.0.0.1:\(port)/none", poolSize: 1,
                                                                     connectTimeoutSeconds: 30),
                                log: TestEnvironment.log)
        defer { pool.shutdown() }
        for _ in 0..<3 {
            let (result, seconds) = await measure { await pgResult { try await pool.query("SELECT 1") } }
            guard case .failure(let error) = result else {
                Issue.record("query succeeded against a closed port")
                return
            }
            #expect(error.isConnectionError)
            #expect(seconds < 10)  // vs the 30 s connect_timeout
        }
        #expect(await pool.ping() == false)
        withExtendedLifetime(refusing) {}
    }

    @Test func shutdown_failsLaterQueriesWithPoolClosed() async throws {
        let pool = PostgresPool(url: "postgresql://nobody@127.0.0.1:1/none", size: 1, log: TestEnvironment.log)
        pool.shutdown()
        await #expect(throws: PostgresError.poolClosed) {
            _ = try await pool.query("SELECT 1")
        }
    }
}
