import Foundation
import Testing
import WhisperRuntime
@testable import WhisperStorage
import WhisperTesting

/// The loop's own session (`PostgresPipeline`), driven through `PostgresPool.query(_:_:on:_:)`
/// from a real event loop against a real PostgreSQL.
@Suite("PostgresPipeline against a real server")
struct PostgresPipelineTests {
    typealias Statement = (sql: String, parameters: [PostgresValue?])

    @Test func statementsOfOneIteration_eachGetTheirOwnAnswer_onTheLoop() async throws {
        try await withTestSchema { schema in
            let pool = schema.pool(size: 1) { $0.sessionsPerLoop = 1 }
            let harness = try TestLoop()
            defer { close(pool, harness) }
            let bytes: [UInt8] = [0, 0x5c, 0xff]
            let statements: [Statement] = (0..<50).map { n in
                ("SELECT $1::bigint * 2 AS n, $2::bytea AS y, $3::text AS t", [.int64(Int64(n)), .bytea(bytes), nil])
            }
            let answers = await runTogether(statements, pool: pool, harness: harness)
            #expect(answers.map(\.index) == Array(0..<50), "completions out of order")
            #expect(answers.allSatisfy { $0.onLoop })
            for (n, answer) in answers.enumerated() {
                let row = try #require(try answer.result.get().first)
                #expect(row.int64("n") == Int64(2 * n))
                #expect(row.bytes("y") == bytes)
                #expect(row.isNull("t"))
            }
        }
    }

    @Test func failingStatement_abortsNothingElse_andEachCommitsAlone() async throws {
        try await withTestSchema { schema in
            let pool = schema.pool(size: 1) { $0.sessionsPerLoop = 1 }
            let harness = try TestLoop()
            defer { close(pool, harness) }
            _ = try await pool.query("CREATE TABLE names (name text PRIMARY KEY)")
            let insert = "INSERT INTO names VALUES ($1)"
            let answers = await runTogether([
                (insert, [.text("alice")]),
                (insert, [.text("alice")]),  // unique violation
                ("SELECT * FROM no_such_table WHERE x = $1", [.text("x")]),  // fails to prepare
                (insert, [.text("bob")]),
                ("SELECT * FROM no_such_table WHERE x = $1", [.text("x")]),  // not cached as prepared
                ("SELECT count(*) AS n FROM names", []),
            ], pool: pool, harness: harness)
            #expect(answers[0].result.failureValue == nil)
            guard case .failure(.uniqueViolation(let constraint, _)) = answers[1].result else {
                Issue.record("expected a unique violation, got \(answers[1].result)")
                return
            }
            #expect(constraint == "names_pkey")
            for failed in [answers[2], answers[4]] {
                guard case .failure(.queryFailed(let sqlState, _)) = failed.result else {
                    Issue.record("expected 42P01, got \(failed.result)")
                    continue
                }
                #expect(sqlState == "42P01")
            }
            #expect(answers[3].result.failureValue == nil)
            #expect(try answers[5].result.get().first?.int64("n") == 2)
            // Committed, each on its own: another session sees both rows.
            #expect(try await pool.query("SELECT count(*) FROM names").first?.int64(0) == 2)
        }
    }

    @Test func statementTimeout_failsThatStatement_andTheSessionGoesOn() async throws {
        try await withTestSchema { schema in
            let pool = schema.pool(size: 1) {
                $0.statementTimeoutMillis = 200
                $0.sessionsPerLoop = 1
            }
            let harness = try TestLoop()
            defer { close(pool, harness) }
            let answers = await runTogether([("SELECT pg_sleep(5)", []), ("SELECT 7", [])], pool: pool, harness: harness)
            #expect(answers[0].result.failureValue == .timeout)
            #expect(try answers[1].result.get().first?.int64(0) == 7)
        }
    }

    @Test func serverThatStopsAnswering_hitsTheDeadline_andANewSessionServesTheNext() async throws {
        try await withTestSchema { schema in
            // Deadline 200 + 300 ms; the session turns its own statement_timeout off first,
            // standing in for a server that no longer answers.
            let pool = schema.pool(size: 1) {
                $0.statementTimeoutMillis = 200
                $0.queueTimeoutMillis = 300
                $0.sessionsPerLoop = 1
            }
            let harness = try TestLoop()
            defer { close(pool, harness) }
            let off = await runTogether([("SELECT set_config('statement_timeout', '0', false)", [])], pool: pool, harness: harness)
            #expect(off[0].result.failureValue == nil)
            let (answers, seconds) = await measure {
                await runTogether([("SELECT pg_sleep(30)", []), ("SELECT 1", [])], pool: pool, harness: harness)
            }
            #expect(answers[0].result.failureValue == .timeout)
            #expect(answers[1].result.failureValue == .timeout)
            #expect(seconds < 10)
            let after = await runTogether([("SELECT 3", [])], pool: pool, harness: harness)
            #expect(try after[0].result.get().first?.int64(0) == 3)
        }
    }

    @Test func queueLimit_refusesWithOverloaded() async throws {
        try await withTestSchema { schema in
            let pool = schema.pool(size: 1) {
                $0.maxQueuedJobs = 2
                $0.sessionsPerLoop = 1
            }
            let harness = try TestLoop()
            defer { close(pool, harness) }
            _ = await runTogether([("SELECT 1", [])], pool: pool, harness: harness)  // session established
            let answers = await runTogether(Array(repeating: ("SELECT 1", []), count: 5), pool: pool, harness: harness)
            #expect(answers.filter { $0.result.failureValue == nil }.count == 2)
            #expect(answers.filter { $0.result.failureValue == .overloaded }.count == 3)
        }
    }

    @Test func shutdown_failsLaterStatementsWithPoolClosed() async throws {
        try await withTestSchema { schema in
            let pool = schema.pool(size: 1)
            let harness = try TestLoop()
            defer { harness.shutdown() }
            _ = await runTogether([("SELECT 1", [])], pool: pool, harness: harness)
            pool.shutdown()
            let answers = await runTogether([("SELECT 1", [])], pool: pool, harness: harness)
            #expect(answers[0].result.failureValue == .poolClosed)
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func restart_failsFastDuringOutage_andTheSessionComesBack() async throws {
        try await withPrivateService(.pg) { server in
            let pool = PostgresPool(configuration: PostgresConfiguration(url: server.url, poolSize: 1),
                                    log: TestEnvironment.log)
            let harness = try TestLoop()
            defer { close(pool, harness) }
            let one: [Statement] = [("SELECT 1", [])]
            #expect(try await runTogether(one, pool: pool, harness: harness)[0].result.get().first?.int64(0) == 1)

            try await server.stop()
            for _ in 0..<3 {
                let (answers, seconds) = await measure { await runTogether(one, pool: pool, harness: harness) }
                #expect(answers[0].result.failureValue?.isConnectionError == true, "got \(answers[0].result)")
                // Failing, not queued: well under the 15 s queue timeout (see PostgresRestartTests).
                #expect(seconds < 10, "a statement during the outage took \(seconds) s")
            }
            try await server.start()
            let recovered = await eventually(within: 10, every: 0.1) {
                await runTogether(one, pool: pool, harness: harness)[0].result.failureValue == nil
            }
            #expect(recovered, "no successful statement within 10 s of the restart")

            // A restart nobody queried through: the loop sees the session end and reconnects,
            // so the first statement afterwards succeeds.
            try await server.stop()
            try await server.start()
            try await Task.sleep(nanoseconds: 300_000_000)
            for _ in 0..<4 {
                let answer = await runTogether(one, pool: pool, harness: harness)[0]
                #expect(answer.result.failureValue == nil, "statement after a quiet restart failed: \(answer.result)")
            }
            #expect(pool.reconnectCount >= 1)
        }
    }

    @Test func twoSessions_aQuietLoopUsesOne_aBusyOneSpreadsItsStatements() async throws {
        try await withTestSchema { schema in
            let pool = schema.pool(size: 1) { $0.sessionsPerLoop = 2 }
            let harness = try TestLoop()
            defer { close(pool, harness) }
            let pid = "SELECT pg_backend_pid() AS pid"
            func pids(_ answers: [PipelineAnswer]) throws -> [Int64] {
                try answers.sorted { $0.index < $1.index }.map { try #require(try $0.result.get().first?.int64("pid")) }
            }
            // One at a time: always the first session.
            var alone: Set<Int64> = []
            for _ in 0..<3 { alone.formUnion(try pids(await runTogether([(pid, [])], pool: pool, harness: harness))) }
            #expect(alone.count == 1)
            // Four in one iteration: the least busy session takes each, so they alternate.
            let together = try pids(await runTogether(Array(repeating: (pid, []), count: 4), pool: pool, harness: harness))
            #expect(Set(together).count == 2)
            #expect(together[0] == together[2] && together[1] == together[3] && together[0] != together[1])
            #expect(together.contains(alone.first ?? -1))
            // A session busy with a slow statement does not hold up the next one.
            let (answers, seconds) = await measure {
                await runTogether([("SELECT pg_sleep(2)", []), ("SELECT 9", [])], pool: pool, harness: harness)
            }
            #expect(answers.map(\.index) == [1, 0], "the quick statement waited for the slow one")
            #expect(try answers[0].result.get().first?.int64(0) == 9)
            #expect(seconds < 10)
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func sessionInReconnectBackoff_isPassedOver_whileTheOtherIsUp() async throws {
        try await withPrivateService(.pg) { server in
            // A role allowed two connections: the pool's worker and the loop's first session;
            // the second session's connect is refused and its (long) backoff starts. (The
            // private cluster's superuser `postgres` may create roles; scripts/lib/postgres.sh.)
            func asRole(_ role: String) -> String {
                server.url.replacingOccurrences(of: "postgresql://whisper@", with: "postgresql://\(role)@")
            }
            let admin = PostgresPool(url: asRole("postgres"), size: 1, log: TestEnvironment.log)
            _ = try await admin.query("CREATE ROLE limited LOGIN CONNECTION LIMIT 2")
            admin.shutdown()
            let url = asRole("limited")
            #expect(url != server.url)
            let pool = PostgresPool(configuration: PostgresConfiguration(url: url, poolSize: 1, reconnectInitialMillis: 60_000,
                                                                         reconnectMaximumMillis: 60_000, sessionsPerLoop: 2),
                                    log: TestEnvironment.log)
            let harness = try TestLoop()
            defer { close(pool, harness) }
            #expect(await eventually(within: 10, every: 0.05) { pool.connectedWorkers == 1 })
            let pid: Statement = ("SELECT pg_backend_pid() AS pid", [])
            #expect(try await runTogether([pid], pool: pool, harness: harness)[0].result.get().count == 1)
            // Two at once: the second goes to the second session, whose connect is refused.
            let pair = await runTogether([pid, pid], pool: pool, harness: harness).sorted { $0.index < $1.index }
            #expect(pair[0].result.failureValue == nil)
            #expect(pair[1].result.failureValue?.isConnectionError == true, "got \(pair[1].result)")
            // While it backs off, a busy iteration goes to the first session alone and nothing fails.
            let four = await runTogether(Array(repeating: pid, count: 4), pool: pool, harness: harness)
            let pids = four.compactMap { try? $0.result.get().first?.int64("pid") }
            #expect(pids.count == 4, "failed: \(four.compactMap(\.result.failureValue))")
            #expect(Set(pids).count == 1)
        }
    }

    @Test func noLoopSessions_sendsLoopStatementsToTheWorkers() async throws {
        try await withTestSchema { schema in
            let pool = schema.pool(size: 1) { $0.sessionsPerLoop = 0 }
            let harness = try TestLoop()
            defer { close(pool, harness) }
            let answers = await runTogether([("SELECT pg_backend_pid() AS pid", []), ("SELECT 5", [])],
                                            pool: pool, harness: harness)
            #expect(answers.allSatisfy { $0.onLoop })
            #expect(try answers[1].result.get().first?.int64(0) == 5)
            #expect(pool.connectedWorkers == 1)  // the worker's connection only
        }
    }
}

/// One statement's answer: its position in the batch, and whether it came back on the loop.
struct PipelineAnswer: Sendable {
    let index: Int
    let onLoop: Bool
    let result: Result<PostgresRows, PostgresError>
}

/// Issues `statements` in one loop iteration; returns the answers in completion order.
func runTogether(_ statements: [(sql: String, parameters: [PostgresValue?])], pool: PostgresPool,
                 harness: TestLoop) async -> [PipelineAnswer] {
    let loop = harness.loop
    return await harness.run { done in
        final class Answers { var list: [PipelineAnswer] = [] }
        let answers = Answers()
        for (index, statement) in statements.enumerated() {
            pool.query(statement.sql, statement.parameters, on: loop) { result in
                answers.list.append(PipelineAnswer(index: index, onLoop: loop.inEventLoop, result: result))
                if answers.list.count == statements.count { done(answers.list) }
            }
        }
    }
}

/// The pool's sessions close on their loop, so the pool goes first.
func close(_ pool: PostgresPool, _ harness: TestLoop) {
    pool.shutdown()
    harness.shutdown()
}
